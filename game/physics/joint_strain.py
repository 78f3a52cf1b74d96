"""Rods that cannot all hold, and chains of rods pulled straight between anchors.

The balls' rods are solved exactly (game.physics.joints): where their lengths leave no room,
the exact solve has no answer and its impulses grow without bound.

- **cannot all hold**: a rod longer than the other rods let its ends be apart (the shortest
  path between its balls through the other rods, and between anchors the straight line:
  anchors never move), or a path of rods between two anchors shorter than the anchors are
  apart (a triangle of 1, 1 and 2.2 m: 1.7 J grew to 2,338 J in 5 s);
- **pulled straight**: a path of two or more rods between two anchors as long as the anchors
  are apart (to TAUT_TOLERANCE): a straight chain cannot sag without stretching, its rows
  lie in one line, and the exact solve shakes it apart (9 balls between anchors 10 m apart:
  111 J grew to 2,000-4,000 J).

``strains`` finds them from the rods' lengths and the anchors alone (not where the balls are:
a snapshot of a chain that sagged is the same chain), for ``--check`` (game.checks_joints
words them) and for the world (``strained``: its joints then solve soft, as Box2D's do, at
game.physics.joints.BLOCKS_HERTZ; they sag a little and settle). A path bounds how far apart
two balls' centres can be: each rod on it by its length plus its held points' offsets. Each
search is Dijkstra's from one end of a rod, cut where it cannot matter.
"""
import heapq
import math

TOLERANCE = 1e-6          # relative: a path this near a rod's length, or its anchors' distance, is enough
TAUT_TOLERANCE = 1e-3     # relative: a path of rods this near its anchors' distance is pulled straight
SPEND_EVERY = 1024        # searched edges between calls of ``spend``
MAX_JUMPING = 64          # anchors a path may go between by the straight line (Search)
MAX_EDGES = 250_000       # searched edges ``strained`` allows itself (then: not strained, rigid as ever): ~0.3 s


class Spent(Exception):
    """``strained``'s budget of searched edges is spent."""


def strains(rods, pos, is_anchor, spend=lambda: None, straight=math.inf):
    """Yield each strain of ``rods`` [(node a, node b, length m, reach a, reach b)] (nodes index
    ``pos``, the anchors' (x, y) and the balls' (for ``straight``); ``is_anchor`` per node;
    ``reach``: the held point's offset from a ball's centre, 0 at an anchor):
    ("cannot", rod k, the most its other rods allow) for a rod that cannot hold,
    ("short", anchor a, anchor b, path m, apart m) for rods between anchors too short, and
    ("taut", anchor a, anchor b, path m, apart m, rods) for a chain pulled straight.
    ``spend()`` is called every SPEND_EVERY edges searched (it may raise, to stop). ``straight``:
    a path that ends TAUT_TOLERANCE longer than its anchors' line is at most that much longer
    than the straight line at every node on it, so the search of an anchor's paths looks no
    further than ``straight`` (m) past it; only where the balls' places agree with their rods."""
    graph = [[] for _ in pos]
    for k, (u, v, length, ru, rv) in enumerate(rods):
        graph[u].append((v, length + ru + rv, k))
        graph[v].append((u, length + ru + rv, k))
    search = Search(graph, pos, is_anchor, spend)
    for k, (u, v, length, ru, rv) in enumerate(rods):
        need = length - ru - rv                     # the least its balls' centres can be apart
        if need <= 0.0:
            continue
        if len(graph[u]) > len(graph[v]):          # from the end with fewer rods (a star's rim, not its hub)
            u, v = v, u
        best, _ = search.reach(u, without=k, stop=need * (1.0 - TOLERANCE), target=v)
        if v in best:
            yield ("cannot", k, best[v])
    for a in [n for n, anchor in enumerate(is_anchor) if anchor]:
        best, steps = search.reach(a, anchors=False, straight=straight)
        for b, path in best.items():
            if b <= a or not is_anchor[b]:
                continue
            apart = math.dist(pos[a], pos[b])
            if path < apart * (1.0 - TOLERANCE):
                yield ("short", a, b, path, apart)
            elif path <= apart * (1.0 + TAUT_TOLERANCE) and steps[b] >= 2:
                yield ("taut", a, b, path, apart, steps[b])


def strained(joints, hands=(), budget=MAX_EDGES):
    """Whether the balls' rods of ``joints`` (game.physics.joints.Joints) have a strain
    (``strains``); False where the search would take more than ``budget`` edges. ``hands``:
    [(ball index, (x, y))] balls the player's grab pulls towards a point, taken as held there
    (a chain dragged past its reach is pulled straight, as one between anchors is)."""
    rod = joints.kind == 0                       # game.physics.joints.KINDS: rods (and pins)
    if not rod.any():
        return False
    n = int(max(joints.a.max(), joints.b.max(), *(ball for ball, _ in hands))) + 1
    pos, is_anchor, anchors, rods = [None] * n, [False] * n, {}, []
    for ball, (x, y) in hands:
        pos.append((float(x), float(y)))
        is_anchor.append(True)
        rods.append((int(ball), len(pos) - 1, 0.0, 0.0, 0.0))
    for a, b, length, oax, oay, obx, oby, x, y in zip(*(getattr(joints, f)[rod].tolist() for f in (
            "a", "b", "length", "off_ax", "off_ay", "off_bx", "off_by", "anchor_x", "anchor_y"))):
        if b < 0:
            if (x, y) not in anchors:
                anchors[(x, y)] = len(pos)
                pos.append((x, y))
                is_anchor.append(True)
            b = anchors[(x, y)]
        rods.append((a, b, length, math.hypot(oax, oay), math.hypot(obx, oby)))
    spent = [0]

    def spend():
        spent[0] += SPEND_EVERY
        if spent[0] > budget:
            raise Spent
    try:
        return next(strains(rods, pos, is_anchor, spend), None) is not None
    except Spent:
        return False


HAND_EDGES = 8192         # searched edges a tick's look at the hands allows itself (~10 ms at most)
HAND_EASE = 1.0           # s: the joints stay soft this long after a hand stops pulling them past their reach


def pulled_by_hand(world):
    """Whether the player's grab pulls the balls' rods past what they allow (``strained`` with
    the grabbed balls held at their grab points): looked at once a tick while a jointed ball is
    held, and again only when a grab point or the joints change (World._hand_strain caches it)."""
    joints, grabs = world.joints, world._grabs
    if world.time < getattr(world, "_hand_soft_until", -math.inf):
        return True
    if not grabs or not len(joints) or world.count == 0:
        return False
    hands = []
    for g in grabs.values():
        at = int(min(max(0, int(world.ids.searchsorted(g.ball_id))), world.count - 1))
        if world.ids[at] == g.ball_id:
            hands.append((at, (float(g.point[0]), float(g.point[1]))))
    key = (tuple(hands), id(joints.a), len(joints))
    cached = getattr(world, "_hand_strain", None)
    if cached is None or cached[0] != key:
        jointed = set(joints.a.tolist()) | set(joints.b.tolist())      # (a hand on a ball no rod holds: none)
        held = [(ball, point) for ball, point in hands if ball in jointed]
        cached = world._hand_strain = (key, bool(held) and strained(joints, held, HAND_EDGES))
    if cached[1]:       # and a while after the hand lets go: the stretch it left eases back
        world._hand_soft_until = world.time + HAND_EASE
    return cached[1]


class Search:
    """Shortest paths through the rods: Dijkstra's, where reaching an anchor reaches every
    other anchor too, by the straight line (they never move). Up to MAX_JUMPING anchors: more
    would cost their square a node; beyond, paths between anchors are left out, so a bound may
    be longer than the truth (a strain missed), never shorter (none made up)."""

    def __init__(self, graph, pos, is_anchor, spend):
        self.graph, self.pos, self.is_anchor, self.spend = graph, pos, is_anchor, spend
        self.anchors = [n for n, a in enumerate(is_anchor) if a]
        if len(self.anchors) > MAX_JUMPING:
            self.anchors = []
        self.edges = 0

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
                if straight < math.inf and d + w > math.dist(self.pos[source], self.pos[other]) + straight:
                    continue
                if d + w < best.get(other, math.inf):
                    best[other] = d + w
                    steps[other] = steps[node] + (1 if k >= 0 else 0)
                    heapq.heappush(heap, (d + w, other))
        return done, steps
