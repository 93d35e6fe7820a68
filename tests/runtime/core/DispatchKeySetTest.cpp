// Dispatch keys and key sets: functionality x backend bits, priority, table slots.
#include <opcore/core/DispatchKeySet.h>

#include <gtest/gtest.h>

#include <set>
#include <sstream>

namespace opcore {
namespace {

std::string str(DispatchKeySet ks) {
  std::ostringstream os;
  os << ks;
  return os.str();
}

TEST(DispatchKeySetTest, PerBackendKeysAreAFunctionalityBitAndABackendBit) {
  const DispatchKeySet cpu(DispatchKey::CPU);
  EXPECT_EQ(cpu, DispatchKeySet(DispatchKey::Dense) | DispatchKeySet(BackendComponent::CPUBit));
  EXPECT_EQ(DispatchKeySet(DispatchKey::AutogradCUDA),
            DispatchKeySet(DispatchKey::AutogradFunctionality) | DispatchKeySet(BackendComponent::CUDABit));
  EXPECT_EQ(toFunctionalityKey(DispatchKey::AutocastMeta), DispatchKey::AutocastFunctionality);
  EXPECT_EQ(toBackendComponent(DispatchKey::AutogradPrivateUse1), BackendComponent::PrivateUse1Bit);
  EXPECT_EQ(toRuntimePerBackendKey(DispatchKey::AutogradFunctionality, BackendComponent::MetaBit),
            DispatchKey::AutogradMeta);
  // Two bits per backend key, one per plain functionality key; aliases have none.
  EXPECT_EQ(__builtin_popcountll(DispatchKeySet(DispatchKey::AutocastCPU).raw()), 2);
  EXPECT_EQ(__builtin_popcountll(DispatchKeySet(DispatchKey::Python).raw()), 1);
  EXPECT_TRUE(DispatchKeySet(DispatchKey::CompositeImplicitAutograd).empty());
  EXPECT_TRUE(DispatchKeySet(DispatchKey::Undefined).empty());
}

TEST(DispatchKeySetTest, HighestPriorityIsHighestFunctionalityThenHighestBackend) {
  const DispatchKeySet ks{DispatchKey::CPU, DispatchKey::AutogradCPU, DispatchKey::ADInplaceOrView};
  EXPECT_EQ(ks.highestPriorityTypeId(), DispatchKey::AutogradCPU);
  EXPECT_EQ((ks & kAfterAutogradKeySet).highestPriorityTypeId(), DispatchKey::ADInplaceOrView);
  EXPECT_EQ((ks & kAfterADInplaceOrViewKeySet).highestPriorityTypeId(), DispatchKey::CPU);
  EXPECT_EQ(DispatchKeySet().highestPriorityTypeId(), DispatchKey::Undefined);
  // Among backends the highest bit wins.
  EXPECT_EQ((DispatchKeySet{DispatchKey::CPU, DispatchKey::Meta}).highestPriorityTypeId(), DispatchKey::Meta);
  // A per-backend functionality with no backend bit is the functionality key itself.
  EXPECT_EQ(DispatchKeySet(DispatchKey::AutogradFunctionality).highestPriorityTypeId(),
            DispatchKey::AutogradFunctionality);
  // Functionality priority: Autocast > Autograd > AutogradOther > ADInplaceOrView > Python > BackendSelect > Dense.
  const DispatchKey order[] = {DispatchKey::CPU,           DispatchKey::BackendSelect, DispatchKey::Python,
                               DispatchKey::ADInplaceOrView, DispatchKey::AutogradOther, DispatchKey::AutogradCPU,
                               DispatchKey::AutocastCPU};
  DispatchKeySet acc;
  for (DispatchKey k : order) {
    acc = acc.add(k);
    EXPECT_EQ(acc.highestPriorityTypeId(), k);
  }
}

TEST(DispatchKeySetTest, SetsAreTheCrossProductOfFunctionalitiesAndBackends) {
  const DispatchKeySet ks{DispatchKey::CPU, DispatchKey::AutogradCUDA};
  EXPECT_TRUE(ks.has(DispatchKey::AutogradCPU));
  EXPECT_TRUE(ks.has(DispatchKey::CUDA));
  EXPECT_FALSE(ks.has(DispatchKey::Meta));
  EXPECT_FALSE(ks.has(DispatchKey::AutocastCPU));
  EXPECT_EQ(str(ks), "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)");
}

TEST(DispatchKeySetTest, RemovingKeysNeverRemovesBackends) {
  const DispatchKeySet ks{DispatchKey::CPU, DispatchKey::AutogradCPU};
  EXPECT_EQ(ks.remove(DispatchKey::AutogradCPU), DispatchKeySet(DispatchKey::CPU));
  EXPECT_EQ(ks - kAutogradKeySet, DispatchKeySet(DispatchKey::CPU));
  // Removing CPU drops Dense but the set keeps its backend.
  EXPECT_EQ(ks.remove(DispatchKey::CPU),
            DispatchKeySet(DispatchKey::AutogradFunctionality) | DispatchKeySet(BackendComponent::CPUBit));
  EXPECT_EQ(ks.removeBackend(BackendComponent::CPUBit),
            (DispatchKeySet{DispatchKey::Dense, DispatchKey::AutogradFunctionality}));
}

TEST(DispatchKeySetTest, EveryRuntimeKeyHasItsOwnTableSlot) {
  std::set<int> slots;
  for (int i = 1; i < static_cast<int>(DispatchKey::EndOfRuntimeKeys); ++i) {
    const auto k = static_cast<DispatchKey>(i);
    if (!isRuntimeKey(k)) continue;
    const int slot = dispatchTableIndex(k);
    EXPECT_GT(slot, 0) << toString(k);
    EXPECT_LT(slot, kDispatchTableSize) << toString(k);
    EXPECT_TRUE(slots.insert(slot).second) << toString(k) << " shares slot " << slot;
    EXPECT_EQ(dispatchKeyForTableIndex(slot), k);
    // The slot of a set is the slot of its highest key.
    const DispatchKeySet with_lower = DispatchKeySet(k) | DispatchKeySet(DispatchKey::CPU);
    EXPECT_EQ(with_lower.dispatchTableIndex(), dispatchTableIndex(with_lower.highestPriorityTypeId()));
  }
  EXPECT_EQ(static_cast<int>(slots.size()), kDispatchTableSize - 1);
  EXPECT_EQ(DispatchKeySet().dispatchTableIndex(), 0);
}

TEST(DispatchKeySetTest, AliasesCoverTheirRuntimeKeys) {
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::AutogradCUDA, DispatchKey::Autograd));
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::AutogradOther, DispatchKey::Autograd));
  EXPECT_FALSE(isIncludedInAlias(DispatchKey::CPU, DispatchKey::Autograd));
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::Meta, DispatchKey::CompositeExplicitAutograd));
  EXPECT_FALSE(isIncludedInAlias(DispatchKey::AutogradCPU, DispatchKey::CompositeExplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::AutogradCPU, DispatchKey::CompositeImplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::PrivateUse1, DispatchKey::CompositeImplicitAutograd));
  EXPECT_FALSE(isIncludedInAlias(DispatchKey::Python, DispatchKey::CompositeImplicitAutograd));
  EXPECT_TRUE(isIncludedInAlias(DispatchKey::CPU, DispatchKey::CPU));
  // A per-backend functionality on its own holds no kernels.
  EXPECT_FALSE(isIncludedInAlias(DispatchKey::AutogradFunctionality, DispatchKey::Autograd));
  EXPECT_FALSE(isKernelKey(DispatchKey::Dense));
  EXPECT_TRUE(isKernelKey(DispatchKey::ADInplaceOrView));
}

TEST(DispatchKeyTest, ParsesEveryName) {
  for (int i = 0; i < kNumKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    EXPECT_EQ(parseDispatchKey(toString(k)), k) << toString(k);
  }
  EXPECT_EQ(parseDispatchKey("Cpu"), std::nullopt);
}

}  // namespace
}  // namespace opcore
