"""The order the joints are solved in and the blocks of it (game.physics.joints).

The direct solve (joints.substep_kernel) factorises K = J M^-1 J^T on its skyline: row r
couples back to the first row that shares one of its balls, so its cost is the sum of the
rows' widths squared and its memory their sum. Both follow the order of the rows: a chain
listed link after link is tridiagonal, the same chain listed evens first then odds couples
every row to half the others (1,554 ms a tick for 1,000 links, 400 times the first), and a
hub with a thousand spokes couples every row to every other whatever the order (60 ticks did
not end in 150 s; 20,000 ropes on one ball took over 1 GB).

So the cost is bounded by the joints, not by how a file lists them:
- ``solve_order``: where the file's order would cost more than Cuthill-McKee's (a
  breadth-first walk over the balls from a least-joined one), the joints are solved in that
  one (a level whose order is already good keeps it, and so its bits);
- ``plan_blocks``: no row couples to more than BLOCK_ROWS rows; past that a new block begins.
  Each block is solved exactly, one after another within a pass (block Gauss-Seidel: a later
  block sees the velocities the earlier ones left). A tree of joints whose skyline fits (a
  chain, a pendulum, a bridge, every shipped level) is one block and exact as before; a hub of
  a thousand spokes is 63 blocks of 16, each exact, joined as Box2D joins its joints, joint
  after joint. Time O(rows x BLOCK_ROWS^2), memory O(rows x BLOCK_ROWS).
"""
import numpy as np

BLOCK_ROWS = 16


def _walk(a, b, pin, order, limit):
    """(blocks, cost) of the rows of the joints taken in ``order``: the skyline each row would
    have (from the first row of the block that shares one of its balls), a new block begun
    where a row's would pass ``limit`` rows; cost: the sum of the rows' widths squared (what
    the factorisation costs). ``pin``: the joints with two rows."""
    first, blocks, cost, r, r0 = {}, [0], 0, 0, 0
    for k, j in enumerate(order):
        ends = (int(a[j]),) if b[j] < 0 else (int(a[j]), int(b[j]))
        own = 2 if pin[j] else 1
        width = r + own - min([first[e] for e in ends if first.get(e, -1) >= r0] or [r])
        if width > limit and r > r0:
            blocks.append(k)
            r0, width = r, own
        for e in ends:
            if first.get(e, -1) < r0:
                first[e] = r
        cost += own * width * width
        r += own
    blocks.append(len(order))
    return blocks, cost


def solve_order(a, b, pin):
    """The order to solve joints in, or None to keep theirs (a level's file order). The order
    decides what the direct solve costs (a chain in file order is tridiagonal; its joints
    listed evens first then odds, every row couples to half the others): where the joints'
    own order needs more blocks than Cuthill-McKee's (a breadth-first walk over the balls from
    a least-joined one, the least-joined neighbours first) or costs over twice as much, theirs
    is taken, so the cost follows the joints, not how a file lists them."""
    n = len(a)
    if n < 2:
        return None
    own, own_cost = _walk(a, b, pin, range(n), BLOCK_ROWS)
    neighbours = {}
    for j in range(n):
        neighbours.setdefault(int(a[j]), [])
        if b[j] >= 0:
            neighbours[int(a[j])].append(int(b[j]))
            neighbours.setdefault(int(b[j]), []).append(int(a[j]))
    rank = {}
    for root in sorted(neighbours, key=lambda ball: (len(neighbours[ball]), ball)):
        if root in rank:
            continue
        rank[root] = len(rank)
        queue, head = [root], 0
        while head < len(queue):
            ball = queue[head]
            head += 1
            for other in sorted(set(neighbours[ball]), key=lambda e: (len(neighbours[e]), e)):
                if other not in rank:
                    rank[other] = len(rank)
                    queue.append(other)
    keys = [(min(rank[int(a[j])], rank[int(b[j])]) if b[j] >= 0 else rank[int(a[j])],
             max(rank[int(a[j])], rank[int(b[j])]) if b[j] >= 0 else rank[int(a[j])], j) for j in range(n)]
    order = [k[2] for k in sorted(keys)]
    theirs, their_cost = _walk(a, b, pin, order, BLOCK_ROWS)
    if len(theirs) < len(own) or (len(theirs) == len(own) and their_cost * 2 < own_cost):
        return np.array(order, np.int64)
    return None


def plan_blocks(a, b, pin):
    """(K + 1,) int64: the first joint of each of the K blocks the solve takes one after
    another, and the count (module docstring: a row couples to at most BLOCK_ROWS rows)."""
    return np.array(_walk(a, b, pin, range(len(a)), BLOCK_ROWS)[0], np.int64)
