"""Level checks for the balls' rods (``game.checks`` runs them with its others; pure, no pygame).

- **rod off its length**: a rod whose held points start nearer or farther apart than its
  ``length`` by more than OFF_LENGTH (a pin's, 1 mm): the first sub-step puts them there at once. Where the
  rod lies in line with others (a chain laid straight and pushed together) no move along the
  rods can do it, and the solve shakes the chain for ever.
- **rods that cannot all hold**: a rod longer than the other rods let its ends be apart (the
  shortest path between its balls through the other rods, and between anchors the straight
  line: anchors never move), or a path of rods between two anchors shorter than the anchors
  are apart. The solve cannot meet them all and flings the balls (a triangle of 1, 1 and
  2.2 m: 1.7 J grew to 2,338 J in 5 s).
- **chain pulled straight**: a path of two or more rods between two anchors exactly as long
  as the anchors are apart (to TAUT_TOLERANCE): a straight chain cannot sag without
  stretching, and the exact solve of rods in one line shakes it apart (9 balls between
  anchors 10 m apart: 111 J grew to 2,000-4,000 J). A little slack, or ropes, hang it.

Only rods between balls and anchors take part (a rope may be slack; a body's joints are
solved soft and give). A path bounds how far apart two balls' centres can be: each rod
along it by its length plus its held points' offsets. Each search is Dijkstra's from one
end of a rod, cut at the distance that would matter, and spends the check's time budget.
"""
import heapq
import math

TOLERANCE = 1e-6          # relative: a path this near a rod's length, or its anchors' distance, is enough
OFF_LENGTH = 1e-3         # relative (of the length, or of 1 m): a rod's held points this near its length are on it
TAUT_TOLERANCE = 1e-3     # relative: a path of rods this near its anchors' distance is pulled straight
SPEND_EVERY = 1024        # searched edges between looks at the clock
MAX_JUMPING = 64          # anchors a path may go between by the straight line (_Search)


def check_joints(level, finding, spend):
    """The findings above for a normalised level (``finding(point, reason)`` makes each)."""
    balls = level.get("balls", [])
    rods = []                  # (joint index, node a, node b, length, reach a, reach b, held a, held b)
    anchors = {}               # (x, y) -> node
    node_pos = [tuple(b["pos"]) for b in balls]
    out = []
    for i, j in enumerate(level.get("joints", [])):
        if j["kind"] != "rod" or isinstance(j["a"], dict) or isinstance(j["b"], dict):
            continue
        ends, nodes, reach = [], [], []
        for end, offset in ((j["a"], j["offset_a"]), (j["b"], j["offset_b"])):
            if isinstance(end, int):
                (x, y), angle = balls[end]["pos"], balls[end]["angle"]
                c, s = math.cos(angle), math.sin(angle)
                ends.append((x + c * offset[0] - s * offset[1], y + s * offset[0] + c * offset[1]))
                nodes.append(end)
                reach.append(math.hypot(*offset))
            else:
                key = (float(end[0]), float(end[1]))
                if key not in anchors:
                    anchors[key] = len(node_pos)
                    node_pos.append(key)
                ends.append(key)
                nodes.append(anchors[key])
                reach.append(0.0)
        length, apart = j["length"], math.dist(*ends)
        if abs(apart - length) > OFF_LENGTH * max(length, 1.0):
            said = "a pin" if length == 0 else f"a rod {_n(length)} m long"
            out.append(finding(_mid(*ends), f"joints[{i}] is {said} between held points {_n(apart)} m apart: "
                                            f"the first tick {'pushes' if apart < length else 'pulls'} them "
                                            f"{'apart' if apart < length else 'together'} at once"))
        rods.append((i, nodes[0], nodes[1], length, reach[0], reach[1], ends[0], ends[1]))
    if not rods:
        return out
    graph = [[] for _ in node_pos]
    for k, (_, u, v, length, ru, rv, _, _) in enumerate(rods):
        graph[u].append((v, length + ru + rv, k))
        graph[v].append((u, length + ru + rv, k))
    is_anchor = [False] * len(node_pos)
    for node in anchors.values():
        is_anchor[node] = True
    search = _Search(graph, node_pos, is_anchor, spend)
    for k, (i, u, v, length, ru, rv, pa, pb) in enumerate(rods):
        need = length - ru - rv                     # the least its balls' centres can be apart
        if need <= 0.0:
            continue
        if len(graph[u]) > len(graph[v]):          # from the end with fewer rods (a star's rim, not its hub)
            u, v = v, u
        bound = search.distance(u, v, without=k, stop=need * (1.0 - TOLERANCE))
        if bound < need * (1.0 - TOLERANCE):
            out.append(finding(_mid(pa, pb), f"joints[{i}] is a rod {_n(length)} m long, but the other rods "
                                              f"hold its balls at most {_n(bound)} m apart: they cannot all hold"))
    span = max((math.dist(p, q) for p in anchors for q in anchors), default=0.0) if len(anchors) <= MAX_JUMPING else \
        math.dist(*(tuple(f(c) for c in zip(*anchors)) for f in (min, max)))      # the anchors' bounding box
    for a in sorted(anchors.values()):
        # Every anchor the rods reach from this one (through rods only), and how: a path that
        # ends at most TAUT_TOLERANCE longer than its anchors' line is that long at every node
        # on it, so no node is looked beyond where its path is longer than its straight line
        # by more than that (a ball's place at the start is one its rods allow: else the
        # first finding above says so).
        best, steps = search.reach(a, anchors=False, straight=TAUT_TOLERANCE * span)
        for b, path in best.items():
            if b <= a or not is_anchor[b]:
                continue
            apart = math.dist(node_pos[a], node_pos[b])
            if path < apart * (1.0 - TOLERANCE):
                out.append(finding(_mid(node_pos[a], node_pos[b]),
                                   f"the rods between anchors {_point(node_pos[a])} and {_point(node_pos[b])} are "
                                   f"{_n(path)} m long, but the anchors are {_n(apart)} m apart: they cannot all hold"))
            elif path <= apart * (1.0 + TAUT_TOLERANCE) and steps[b] >= 2:
                out.append(finding(_mid(node_pos[a], node_pos[b]),
                                   f"a chain of {steps[b]} rods is pulled straight between anchors "
                                   f"{_point(node_pos[a])} and {_point(node_pos[b])} ({_n(path)} m of rods, "
                                   f"{_n(apart)} m apart): it cannot sag, and the solve shakes it; give it slack "
                                   f"(longer rods) or use ropes"))
    return out


class _Search:
    """Shortest paths through the rods: Dijkstra's, where reaching an anchor reaches every
    other anchor too, by the straight line (they never move)."""

    def __init__(self, graph, pos, is_anchor, spend):
        self.graph, self.pos, self.is_anchor, self.spend = graph, pos, is_anchor, spend
        # Paths through the world: up to MAX_JUMPING anchors (each reaches every other; more
        # would cost their square a node). Beyond, paths between anchors are left out: a bound
        # then may be longer than the truth (a finding missed), never shorter (none made up).
        self.anchors = [n for n, a in enumerate(is_anchor) if a]
        if len(self.anchors) > MAX_JUMPING:
            self.anchors = []
        self.edges = 0

    def distance(self, source, target, without=-1, stop=math.inf):
        """The shortest path's length from ``source`` to ``target`` not through rod ``without``
        (inf where there is none, or none shorter than ``stop``)."""
        best, _ = self.reach(source, without, stop, target=target)
        return best.get(target, math.inf)

    def reach(self, source, without=-1, stop=math.inf, anchors=True, target=-1, straight=math.inf):
        """({node: the shortest path's length from ``source``}, {node: its rods}) for the nodes
        within ``stop``, not through rod ``without`` (``anchors``: an anchor reaches the others
        by the straight line) and (``straight``) whose path is at most that much longer than
        their straight line from ``source``; the search ends at ``target`` once its path is known."""
        best = {source: 0.0}
        steps = {source: 0}
        done = {}
        heap = [(0.0, source)]
        while heap:
            d, node = heapq.heappop(heap)
            if node in done or d > stop:
                continue
            done[node] = d
            if node == target:
                break
            nexts = [(other, w, k) for other, w, k in self.graph[node] if k != without]
            if anchors and self.is_anchor[node]:
                nexts += [(other, math.dist(self.pos[node], self.pos[other]), -1)
                          for other in self.anchors if other != node]
            for other, w, k in nexts:
                self.edges += 1
                if self.edges % SPEND_EVERY == 0:
                    self.spend()
                if d + w > math.dist(self.pos[source], self.pos[other]) + straight:
                    continue
                if d + w < best.get(other, math.inf):
                    best[other] = d + w
                    steps[other] = steps[node] + (1 if k >= 0 else 0)
                    heapq.heappush(heap, (d + w, other))
        return done, steps


def _mid(p, q):
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def _point(p):
    return f"({_n(p[0])}, {_n(p[1])})"


def _n(x):
    return f"{float(x):.3g}"
