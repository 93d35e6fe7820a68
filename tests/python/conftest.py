"""pytest configuration for the opcore Python tests: every test must leave grad mode as it found
it (grad mode is thread-local state shared by all tests of the run), and OPCORE_TEST_SHARD=i/n
runs every n-th collected test from the i-th (ctest runs the operator table as two such shards,
python_opinfo_0 and python_opinfo_1, so that neither ends the ASan run alone)."""
import os

import pytest

import opcore


def _shard():
    """(index, count) from OPCORE_TEST_SHARD, or None when it is unset."""
    value = os.environ.get("OPCORE_TEST_SHARD", "")
    if not value:
        return None
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise pytest.UsageError(f"OPCORE_TEST_SHARD={value!r}: expected i/n with 0 <= i < n, as 0/2")
    return int(index), int(count)


def pytest_collection_modifyitems(config, items):
    shard = _shard()
    if shard is None:
        return
    index, count = shard
    # Every n-th test rather than a block: the table's cases of one operator are collected
    # together, and their costs differ from operator to operator.
    kept = [item for i, item in enumerate(items) if i % count == index]
    config.hook.pytest_deselected(items=[item for i, item in enumerate(items) if i % count != index])
    items[:] = kept


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    leaked = not opcore.is_grad_enabled() or opcore.is_inference_mode_enabled()
    opcore._C._set_grad_enabled(True)
    assert not leaked, "the test left grad mode disabled"
