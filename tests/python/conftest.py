"""pytest configuration for the opcore Python tests: every test must leave grad mode as it found
it (grad mode is thread-local state shared by all tests of the run). OPCORE_TEST_SHARD=K/N runs
the K-th of N shards of the tests collected (every N-th, from the K-th): ctest runs the
operator table as two such processes, which -j2 runs side by side."""
import os

import pytest

import opcore


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    leaked = not opcore.is_grad_enabled() or opcore.is_inference_mode_enabled()
    opcore._C._set_grad_enabled(True)
    assert not leaked, "the test left grad mode disabled"


def pytest_collection_modifyitems(config, items):
    shard = os.environ.get("OPCORE_TEST_SHARD")
    if not shard:
        return
    index, _, count = shard.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise pytest.UsageError(f"OPCORE_TEST_SHARD={shard!r}: expected K/N with 0 <= K < N, as 0/2")
    index, count = int(index), int(count)
    kept = items[index::count]
    config.hook.pytest_deselected(items=[item for i, item in enumerate(items) if i % count != index])
    items[:] = kept
