"""The driver's time grid for compiled runs of whole steps (femb.solvers.dynamics.step_grid):
``FrameGrid`` slices the whole run's grid and must give ``steps_to_frame``'s numbers bit for
bit, for windows that start on the grid and for those that do not."""
import numpy as np
import pytest

from femb.solvers.dynamics.step_grid import FrameGrid, steps_to_frame


@pytest.mark.parametrize("n_steps, t0, dt, t_end, every", [
    (200, 0.0, 0.02, 4.0, 50),       # the revolute body of the peer suite
    (250, 0.0, 2e-3, 0.5, 7),        # a window length that does not divide the run
    (37, 0.3, 0.1, 3.95, 10),        # a shorter last step (t_end off the grid)
    (11, -1.0, 1.0 / 3.0, 2.6, 1),   # one step per window
])
def test_windows_equal_steps_to_frame(n_steps, t0, dt, t_end, every):
    grid = FrameGrid(n_steps, t0, dt, t_end, every)
    t, n = t0, 0
    windows = 0
    while n < n_steps:
        got = grid.window(t, n)
        want = steps_to_frame(t, n, n_steps, t0, dt, t_end, every)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and np.array_equal(a, b)
            assert np.array_equal(np.signbit(a), np.signbit(b))
        assert got[0].size > 0
        t, n = float(got[0][-1]), n + got[0].size
        windows += 1
    assert windows == -(-n_steps // every)  # every window ends at a recorded step
    assert t == t_end or abs(t - t_end) <= 1e-12 * max(1.0, abs(t_end))


def test_windows_off_the_grid_are_computed_afresh():
    grid = FrameGrid(100, 0.0, 0.01, 1.0, 25)
    t = 0.013  # after a cut-back: not where a grid step ends
    for n in (1, 24, 30):
        got, want = grid.window(t, n), steps_to_frame(t, n, 100, 0.0, 0.01, 1.0, 25)
        for a, b in zip(got, want):
            assert np.array_equal(a, b)
    # a step the driver would not take whole ends the window early, in both
    t = 0.0200000000001
    got, want = grid.window(t, 2), steps_to_frame(t, 2, 100, 0.0, 0.01, 1.0, 25)
    assert got[0].size == want[0].size
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("n_steps, t0, dt, t_end, every", [
    (11, 0.0, 0.1, 1.0 + 1e-14, 4),   # the last step of the grid too short to take whole
    (6, 1.0e4, 1.0e-9, 1.0e4 + 6.0e-9, 3),  # steps below the driver's time resolution: none whole
])
def test_windows_end_before_a_step_the_driver_would_not_take_whole(n_steps, t0, dt, t_end, every):
    grid = FrameGrid(n_steps, t0, dt, t_end, every)
    assert grid.cuts  # the grid has such a step
    for n in range(n_steps):
        t = t0 if n == 0 else grid.ends[n - 1]
        got = grid.window(t, n)
        want = steps_to_frame(t, n, n_steps, t0, dt, t_end, every)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and np.array_equal(a, b)
            assert np.array_equal(np.signbit(a), np.signbit(b))
        stop = min(n_steps, (n + every) // every * every)  # after the next recorded step
        assert got[0].size == min([stop] + [c for c in grid.cuts if c >= n]) - n  # or before the first cut
