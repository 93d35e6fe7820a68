"""opcore.Generator and the default generators' functions (torch.Generator's surface): a
generator passed as generator= drives a random operator's values, reproducibly from its seed or
its saved state; bad arguments are refused with torch's exception types."""
import pytest

import opcore


@pytest.fixture(autouse=True)
def _keep_the_default_generator():
    """The tests here reseed the default generator; later tests find it as it was."""
    state = opcore.get_rng_state()
    yield
    opcore.set_rng_state(state)


def test_a_generator_reproduces_its_stream_from_a_seed():
    g = opcore.Generator()
    assert g.device == opcore.device("cpu")
    assert g.manual_seed(42) is g
    assert g.initial_seed() == 42
    first = (opcore.randperm(50, generator=g).tolist(), opcore.rand(5, generator=g).tolist(),
             opcore.randn(5, generator=g).tolist(), opcore.empty(5).uniform_(-2, 2, generator=g).tolist())
    g.manual_seed(42)
    again = (opcore.randperm(50, generator=g).tolist(), opcore.rand(5, generator=g).tolist(),
             opcore.randn(5, generator=g).tolist(), opcore.empty(5).uniform_(-2, 2, generator=g).tolist())
    assert again == first
    assert opcore.rand(5, generator=g).tolist() != first[1], "the stream moves on"


def test_generators_are_independent_of_each_other_and_of_the_default():
    g, h = opcore.Generator().manual_seed(7), opcore.Generator().manual_seed(7)
    opcore.manual_seed(7)
    from_default = opcore.rand(4).tolist()
    assert opcore.rand(4, generator=g).tolist() == from_default
    opcore.rand(100)  # the default generator and g move on; h does not
    assert opcore.rand(4, generator=h).tolist() == from_default


def test_get_state_and_set_state_restore_the_stream():
    g = opcore.Generator().manual_seed(3)
    opcore.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == opcore.uint8 and state.shape == (16,)
    expected = opcore.randn(6, generator=g).tolist()
    other = opcore.Generator()
    assert other.set_state(state) is other
    assert opcore.randn(6, generator=other).tolist() == expected
    assert other.initial_seed() == 3


def test_the_default_generator_and_the_module_functions():
    assert opcore.manual_seed(5) is opcore.default_generator
    assert opcore.initial_seed() == 5 == opcore.default_generator.initial_seed()
    state = opcore.get_rng_state()
    x = opcore.rand(3).tolist()
    opcore.set_rng_state(state)
    assert opcore.rand(3).tolist() == x
    s = opcore.seed()
    assert isinstance(s, int) and opcore.initial_seed() == s
    assert opcore.manual_seed(-1).initial_seed() == 2**64 - 1, "a negative seed wraps, as torch's"


def test_bad_generators_and_states_are_refused():
    g = opcore.Generator()
    with pytest.raises(TypeError, match="argument 'generator' must be Generator"):
        opcore.rand(2, generator=3)
    with pytest.raises(RuntimeError, match="expected a generator on cpu"):
        opcore.rand(2, generator=opcore.Generator("meta"))
    with pytest.raises(TypeError, match="seed must be an int"):
        g.manual_seed(1.5)
    with pytest.raises(RuntimeError, match="expected a uint8 CPU tensor"):
        g.set_state(opcore.zeros(16))
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        g.set_state(opcore.zeros(3, dtype=opcore.uint8))
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        g.set_state(opcore.zeros(4, 4, dtype=opcore.uint8))
    state = opcore.Generator().manual_seed(5).get_state()
    assert g.set_state(opcore.stack([state, state], 1)[:, 0]).initial_seed() == 5, "a strided state is read"
    with pytest.raises(TypeError, match="expected a uint8 tensor"):
        opcore.set_rng_state([0] * 16)
    with pytest.raises(RuntimeError, match="device type at start of device string"):
        opcore.Generator("gpu")


def test_a_generator_goes_through_opcore_ops():
    g = opcore.Generator().manual_seed(9)
    expected = opcore.randperm(20, generator=g).tolist()
    g.manual_seed(9)
    assert opcore.ops.aten.randperm.default(20, generator=g).tolist() == expected
