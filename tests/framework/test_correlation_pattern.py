"""The CSR pattern and scatter map of femb.correlation.pattern against a plain numpy
reference (all coupled pairs, sorted and made unique), on random element blocks with
constrained entries, repeated equations and rows longer than the insertion-sort limit."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from femb.correlation.pattern import bandwidth_reducing_order, csr_pattern, renumbered_pattern


def reference(n_eq, blocks):
    r = np.concatenate([np.repeat(eq, eq.shape[1], axis=1).ravel() for eq in blocks])
    c = np.concatenate([np.tile(eq, (1, eq.shape[1])).ravel() for eq in blocks])
    keep = (r >= 0) & (c >= 0)
    keys = np.unique(r[keep] * n_eq + c[keep])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // n_eq, minlength=n_eq))])
    positions = []
    for eq in blocks:
        rr, cc = eq[:, :, None], eq[:, None, :]
        valid = (rr >= 0) & (cc >= 0)
        pos = np.where(valid, np.searchsorted(keys, np.maximum(rr, 0) * n_eq + np.maximum(cc, 0)), -1)
        positions.append(pos)
    return indptr, keys % n_eq, positions


def random_blocks(rng, n_eq):
    blocks = [rng.integers(-1, n_eq, (int(rng.integers(0, 40)), int(rng.integers(1, 8)))) for _ in range(3)]
    blocks.append(np.tile(np.arange(-1, n_eq), (3, 1))[:, : min(n_eq + 1, 90)])  # long rows
    return [np.ascontiguousarray(b, dtype=np.int64) for b in blocks]


@pytest.mark.parametrize("seed", range(6))
def test_pattern_and_positions_equal_the_sorted_pair_reference(seed):
    rng = np.random.default_rng(seed)
    n_eq = int(rng.integers(1, 120))
    blocks = random_blocks(rng, n_eq)
    indptr, indices, positions = csr_pattern(n_eq, blocks)
    ri, rj, rpos = reference(n_eq, blocks)
    assert indptr.dtype == indices.dtype == np.int32
    assert np.array_equal(indptr, ri) and np.array_equal(indices, rj)
    for pos, ref in zip(positions, rpos):
        assert pos.dtype == np.int32 and np.array_equal(pos, ref)


@pytest.mark.parametrize("seed", range(6))
def test_renumbered_pattern_is_the_pattern_of_the_reverse_cuthill_mckee_blocks(seed):
    rng = np.random.default_rng(seed)
    n_eq = int(rng.integers(1, 120))
    blocks = random_blocks(rng, n_eq)
    ri, rj, _ = reference(n_eq, blocks)
    graph = sp.csr_matrix((np.ones(rj.size, dtype=np.int8), rj, ri), shape=(n_eq, n_eq))
    perm = np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), dtype=np.int64)
    assert np.array_equal(bandwidth_reducing_order(n_eq, blocks), perm)
    new_of_old, eq_new, (indptr, indices, positions) = renumbered_pattern(n_eq, blocks)
    assert np.array_equal(new_of_old[perm], np.arange(n_eq))
    expected_blocks = [np.where(b >= 0, new_of_old[np.maximum(b, 0)], -1) for b in blocks]
    for a, b in zip(eq_new, expected_blocks):
        assert np.array_equal(a, b)
    ri, rj, rpos = reference(n_eq, expected_blocks)
    assert np.array_equal(indptr, ri) and np.array_equal(indices, rj)
    for pos, ref in zip(positions, rpos):
        assert np.array_equal(pos, ref)
