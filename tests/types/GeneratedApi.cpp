// Part of the types compile check (cmake/TypesCheck.cmake): the C++ API generated from
// tests/gen/fixtures/types, where every schema type appears in every shape and every kind of
// default. Including the headers compiles every declaration and default argument; the calls
// below check that the usual spellings of each argument type convert.
#include <opcore/Functions.h>
#include <opcore/NativeFunctions.h>

#include <cmath>

namespace opcore::types_check {

// Never called: compiled, not linked into anything.
void callEveryKind(const Tensor& t, const Generator& g, const Storage& s) {
  t.defaults();
  opcore::defaults(t, 2.5, false, 0, 1, 2, 3, 0.5, 1.5, 2.5, false, "sum", std::nullopt, "x", "y\\\"", std::nullopt,
                   Reduction::Sum, Reduction::None, ScalarType::Int,
                   std::nullopt, Device(DeviceType::CPU), std::nullopt, Layout::Strided, std::nullopt,
                   MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, {1, 2}, {}, {3, 4}, std::nullopt, 1,
                   {0.5}, std::nullopt, {true, true, false}, std::array<bool, 2>{true, false}, {false}, {1, 2.5, true},
                   {"a", "b"}, {t, t}, {t, std::nullopt}, t, g, Dimname::fromString("N"), Stream(), s,
                   std::vector<Dimname>{Dimname::wildcard()});
  t.fill_random_(0, 1, g);
  opcore::fill_random_out(const_cast<Tensor&>(t), t, -1, 1, std::nullopt);
  t.lookup({t, std::nullopt, t});
  opcore::lookup(t, std::vector<std::optional<Tensor>>{t});
  opcore::layout_types(t, Layout::Strided, std::nullopt, {Layout::Strided}, std::nullopt, {std::nullopt},
                       std::nullopt, {Layout::Sparse, Layout::SparseCsr});
  opcore::dimname_types(t, Dimname::fromString("C"), std::nullopt, {Dimname::fromString("H")}, std::nullopt,
                        {Dimname::wildcard(), std::nullopt}, std::nullopt, {Dimname::wildcard(), Dimname::wildcard()});
  opcore::str_types(t, "a", "b", {"c"}, std::nullopt, {"d", std::nullopt}, std::nullopt, {"e", "f"});
  opcore::bool_array_types(t, {true, false, true});
  const std::tuple<QScheme, std::optional<QScheme>, std::vector<QScheme>, std::vector<std::optional<QScheme>>,
                   std::optional<std::vector<QScheme>>>
      schemes = t.qscheme_types(QScheme::PerTensorAffine, std::nullopt, {QScheme::PerChannelAffine}, std::nullopt,
                                {QScheme::PerTensorSymmetric, std::nullopt}, std::nullopt,
                                {QScheme::PerChannelSymmetric, QScheme::PerChannelAffineFloatQParams});
  // `std` names an operator, a method and a variable (as a saved argument does in an autograd
  // node's apply()); namespace std stays reachable.
  const double std = 2.0;
  t.std(std::vector<int64_t>{0}, true);
  std::tuple<Tensor, std::optional<Tensor>> moments = opcore::std(t, {1}, std::nullopt, false);
  opcore::std_out(std::get<0>(moments), t);
  t.normal_like(0, std, g);
  opcore::normal_like(t, 1, std::sqrt(std));
}

}  // namespace opcore::types_check
