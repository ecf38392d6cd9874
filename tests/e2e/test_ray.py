"""``simpilot replay --executor ray``: the same worker code on Ray actors gives the same outcomes.

The tests start a real local Ray instance; the oracle's replay joins it from another process with
``--address``, as a user would join a cluster (inheriting this process's Ray settings, such as
``RAY_AUTH_MODE=token``), and the empty model's replay runs in this process, already connected."""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import cli
from tests.conftest import tiny_scenario

from .conftest import simpilot

pytestmark = pytest.mark.e2e
ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a two-CPU Ray instance started for these tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def rows(db: Path, run: str) -> list[tuple[str, str, str | None, str]]:
    with sqlite3.connect(db) as con:
        return list(con.execute("SELECT task_id, postprocess, processed, status FROM outcomes WHERE run_id=? ORDER BY task_id, postprocess", (run,)))


def simpilot_actors() -> list[dict]:
    """Every actor the cluster has run for simpilot (live or dead)."""
    from ray._private import state

    return [a for a in state.actors().values() if a.get("ActorClassName", "").endswith("_Actor")]


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_ray_actors_give_the_outcomes_of_local_threads(cluster: str, tiny_repo: Path, tmp_path: Path) -> None:
    tasks, scenario = tiny_scenario(tiny_repo, tmp_path, per_kind=2)
    db = tmp_path / "runs.db"
    for model in ("oracle", "empty"):
        common = ["--db", str(db), "replay", str(scenario), "--model", model, "--repo", str(tiny_repo)]
        here = CliRunner().invoke(cli, [*common, "--run", f"local-{model}", "--jobs", "1"])
        assert here.exit_code == 0, here.output
        if model == "oracle":  # as a user would start it
            r = simpilot(*common, "--run", f"ray-{model}", "--jobs", "2", "--executor", "ray", "--address", cluster)
            assert r.returncode == 0, r.stderr
        else:  # quicker
            r = CliRunner().invoke(cli, [*common, "--run", f"ray-{model}", "--jobs", "2", "--executor", "ray"])
            assert r.exit_code == 0, r.output
        local, distributed = rows(db, f"local-{model}"), rows(db, f"ray-{model}")
        assert len(local) == 2 * len(tasks)
        assert distributed == local
    assert {status for *_, status in rows(db, "ray-oracle")} == {"pass"}
    assert {status for *_, status in rows(db, "ray-empty")} != {"pass"}
    actors = simpilot_actors()
    assert len(actors) == 4 and all(a["State"] == "DEAD" for a in actors)  # two per run, stopped after it
    with sqlite3.connect(db) as con:
        unfinished = [r for r, in con.execute("SELECT run_id FROM runs WHERE finished IS NULL")]
    assert unfinished == []


def test_address_without_ray_executor_is_a_usage_error(tmp_path: Path) -> None:
    scenario = tmp_path / "s.jsonl"
    scenario.write_text("")
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "r.db"), "replay", str(scenario), "--model", "oracle", "--address", "auto"])
    assert result.exit_code == 2 and "--executor ray" in result.output


def test_unreachable_cluster_is_one_clear_error(tiny_repo: Path, tmp_path: Path) -> None:
    _, scenario = tiny_scenario(tiny_repo, tmp_path, per_kind=1)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    r = simpilot("--db", str(tmp_path / "r.db"), "replay", str(scenario), "--model", "oracle", "--repo", str(tiny_repo),
                 "--executor", "ray", "--address", address, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"cannot connect to the Ray cluster at '{address}'" in r.stderr
