"""``femb sweep``: cartesian product of parameter values, sweep.csv, failures, pool, Dask."""
import csv

import pytest

from femb.case import load_case
from femb.cli import main
from tests.io.conftest import EXAMPLES

ROLLUP = EXAMPLES / "cantilever_rollup.toml"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def values(rows):
    """The rows without the timing column."""
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def sweep(capsys, *argv):
    code = main(["sweep", *map(str, argv)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_serial_sweep_writes_one_folder_and_row_per_combination(write_case, tmp_path, capsys):
    case = write_case()
    code, out, _ = sweep(capsys, case, "--param", "EI=1,2", "--param", "L=1,0.5", "--out", tmp_path / "s")
    assert code == 0, out
    rows = read_csv(tmp_path / "s" / "sweep.csv")
    assert [(r["EI"], r["L"]) for r in rows] == [("1", "1"), ("1", "0.5"), ("2", "1"), ("2", "0.5")]
    assert list(rows[0])[:5] == ["EI", "L", "status", "seconds", "error"]
    assert {"time", "load_factor", "strain_energy"} <= set(rows[0])
    for r in rows:
        assert r["status"] == "completed" and float(r["seconds"]) >= 0 and r["error"] == ""
        folder = tmp_path / "s" / f"EI={r['EI']},L={r['L']}"
        assert (folder / "history.csv").is_file() and (folder / "run.json").is_file()
        assert float(r["time"]) == 1.0
    # end moment M = 0.5*pi*EI/L on the unit-length beam (mesh fixed): energy M^2 / (2 EI) ~ EI / L^2
    energy = {(r["EI"], r["L"]): float(r["strain_energy"]) for r in rows}
    assert energy[("2", "1")] == pytest.approx(2 * energy[("1", "1")], rel=1e-6)
    assert energy[("1", "0.5")] == pytest.approx(4 * energy[("1", "1")], rel=1e-6)


def test_load_case_parameter_override_propagates_to_later_parameters(write_case):
    case = write_case(replace=(("L = 1.0\n", "L = 1.0\nM = \"EI/L\"\n"),))
    assert load_case(case, parameters={"EI": 4.0}).parameters == {"EI": 4.0, "L": 1.0, "M": 4.0}


def test_serial_and_two_jobs_give_the_same_csv(tmp_path, capsys):
    args = [ROLLUP, "--param", "EI=1,2,3", "--smoke"]
    assert sweep(capsys, *args, "--out", tmp_path / "serial")[0] == 0
    code, out, _ = sweep(capsys, *args, "--jobs", "2", "--out", tmp_path / "pool")
    assert code == 0 and "2 local processes" in out
    serial, pool = read_csv(tmp_path / "serial" / "sweep.csv"), read_csv(tmp_path / "pool" / "sweep.csv")
    assert len(serial) == 3 and values(serial) == values(pool)


def test_unknown_or_malformed_parameter_is_bad_input(tmp_path, capsys):
    code, _, err = sweep(capsys, ROLLUP, "--param", "EJ=1,2", "--out", tmp_path / "s")
    assert code == 2 and "unknown parameter 'EJ'" in err and "L, EI" in err
    assert not (tmp_path / "s").exists()
    code, _, err = sweep(capsys, ROLLUP, "--param", "EI=1,two", "--out", tmp_path / "s")
    assert code == 2 and "'two' is not a number" in err
    code, _, err = sweep(capsys, ROLLUP, "--param", "EI=1", "--param", "EI=2", "--out", tmp_path / "s")
    assert code == 2 and "given twice" in err


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_combination_is_reported_and_the_others_run(tmp_path, capsys, jobs):
    code, out, _ = sweep(capsys, ROLLUP, "--param", "EI=1,-1,2", "--smoke", "--jobs", jobs, "--out", tmp_path / "s")
    assert code == 1
    assert "2 of 3 runs completed" in out and "EI=-1: failed" in out
    rows = {r["EI"]: r for r in read_csv(tmp_path / "s" / "sweep.csv")}
    assert [r["status"] for r in rows.values()] == ["completed", "failed", "completed"]
    assert "sections.strip.I" in rows["-1"]["error"] and "must be > 0" in rows["-1"]["error"]
    assert rows["-1"]["strain_energy"] == "" and float(rows["2"]["strain_energy"]) > 0
    assert (tmp_path / "s" / "EI=2" / "run.json").is_file()


def test_dask_scheduler_gives_the_same_values(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    args = [ROLLUP, "--param", "EI=1,2", "--param", "L=1", "--smoke"]
    assert sweep(capsys, *args, "--out", tmp_path / "local")[0] == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=None) as cluster:
        code, out, _ = sweep(capsys, *args, "--scheduler", cluster.scheduler_address, "--out", tmp_path / "dask")
    assert code == 0 and "Dask scheduler tcp://127.0.0.1:" in out
    local, remote = read_csv(tmp_path / "local" / "sweep.csv"), read_csv(tmp_path / "dask" / "sweep.csv")
    assert len(remote) == 2 and values(local) == values(remote)
    assert (tmp_path / "dask" / "EI=2,L=1" / "history.csv").is_file()


@pytest.mark.parametrize("address", ["tcp//127.0.0.1:8786", "tcp://127.0.0.1:port", "tcp://127.0.0.1:99999", "127.0.0.1", "x" * 300])
def test_malformed_scheduler_address_is_exit_2(write_case, tmp_path, capsys, address):
    code, _, err = sweep(capsys, write_case(), "--param", "EI=1", "--scheduler", address, "--out", tmp_path / "s")
    assert code == 2 and "--scheduler" in err and "expected a Dask scheduler address such as tcp://127.0.0.1:8786" in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 250


def test_refused_scheduler_port_is_exit_2_quickly(write_case, tmp_path, capsys):
    import socket
    import time

    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    code, _, err = sweep(capsys, write_case(), "--param", "EI=1", "--scheduler", f"tcp://127.0.0.1:{port}", "--out", tmp_path / "s")
    assert code == 2 and f"--scheduler tcp://127.0.0.1:{port}: no Dask scheduler answered within 5 s" in err
    assert len(err.strip().splitlines()) == 1
    assert time.monotonic() - start < 15  # 30 s and more before
