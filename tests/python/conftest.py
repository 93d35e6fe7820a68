"""pytest configuration for the opcore Python tests: every test must leave grad mode as it found
it (grad mode is thread-local state shared by all tests of the run)."""
import pytest

import opcore


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    leaked = not opcore.is_grad_enabled() or opcore.is_inference_mode_enabled()
    opcore._C._set_grad_enabled(True)
    assert not leaked, "the test left grad mode disabled"
