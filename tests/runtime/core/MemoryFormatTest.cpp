// Tests of the small value types of schemas: Layout, MemoryFormat (and its strides), QScheme,
// Dimname (interning, wildcard, validation) and Stream.
#include <opcore/core/Dimname.h>
#include <opcore/core/Error.h>
#include <opcore/core/Layout.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/QScheme.h>
#include <opcore/core/Stream.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
std::string str(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string errorOf(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MemoryFormatTest, NamesPrint) {
  EXPECT_EQ(str(Layout::Strided), "Strided");
  EXPECT_EQ(str(Layout::Sparse), "Sparse");
  EXPECT_EQ(str(Layout::SparseCsr), "SparseCsr");
  EXPECT_EQ(str(MemoryFormat::Contiguous), "Contiguous");
  EXPECT_EQ(str(MemoryFormat::Preserve), "Preserve");
  EXPECT_EQ(str(MemoryFormat::ChannelsLast), "ChannelsLast");
  EXPECT_EQ(str(MemoryFormat::ChannelsLast3d), "ChannelsLast3d");
  EXPECT_EQ(str(QScheme::PerTensorAffine), "PerTensorAffine");
  EXPECT_EQ(str(QScheme::PerChannelAffine), "PerChannelAffine");
  EXPECT_EQ(str(QScheme::PerTensorSymmetric), "PerTensorSymmetric");
  EXPECT_EQ(str(QScheme::PerChannelSymmetric), "PerChannelSymmetric");
  EXPECT_EQ(str(QScheme::PerChannelAffineFloatQParams), "PerChannelAffineFloatQParams");
  // PyTorch's numbering, which Python callers pass as ints.
  EXPECT_EQ(static_cast<int>(QScheme::PerChannelAffineFloatQParams), 4);
  EXPECT_EQ(kNumQSchemes, 5);
}

TEST(MemoryFormatTest, StridesOfEachFormat) {
  EXPECT_THAT(contiguousStrides({2, 3, 4, 5}, MemoryFormat::Contiguous), ElementsAre(60, 20, 5, 1));
  EXPECT_THAT(contiguousStrides({2, 3, 4, 5}, MemoryFormat::ChannelsLast), ElementsAre(60, 1, 15, 3));
  EXPECT_THAT(contiguousStrides({2, 3, 4, 5, 6}, MemoryFormat::ChannelsLast3d), ElementsAre(360, 1, 90, 18, 3));
  EXPECT_THAT(contiguousStrides({}, MemoryFormat::Contiguous), ElementsAre());
  // Sizes 0 and 1 count as 1, as in PyTorch.
  EXPECT_THAT(contiguousStrides({2, 0, 3}, MemoryFormat::Contiguous), ElementsAre(3, 3, 1));
  EXPECT_THAT(errorOf([] { contiguousStrides({2, 3}, MemoryFormat::ChannelsLast); }),
              HasSubstr("ChannelsLast needs a 4-D tensor, got sizes [2, 3]"));
  EXPECT_THAT(errorOf([] { contiguousStrides({1, 2, 3, 4}, MemoryFormat::ChannelsLast3d); }),
              HasSubstr("ChannelsLast3d needs a 5-D tensor"));
  EXPECT_THAT(errorOf([] { contiguousStrides({2}, MemoryFormat::Preserve); }),
              HasSubstr("MemoryFormat::Preserve names no layout"));
}

TEST(MemoryFormatTest, IsContiguousAsEachFormat) {
  EXPECT_TRUE(isContiguousAs({2, 3, 4, 5}, {60, 20, 5, 1}, MemoryFormat::Contiguous));
  EXPECT_FALSE(isContiguousAs({2, 3, 4, 5}, {60, 20, 5, 1}, MemoryFormat::ChannelsLast));
  EXPECT_TRUE(isContiguousAs({2, 3, 4, 5}, {60, 1, 15, 3}, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(isContiguousAs({2, 3, 4, 5}, {60, 1, 15, 3}, MemoryFormat::Contiguous));
  // With one channel and 1x1 images, both layouts hold.
  EXPECT_TRUE(isContiguousAs({2, 1, 1, 1}, {1, 1, 1, 1}, MemoryFormat::Contiguous));
  EXPECT_TRUE(isContiguousAs({2, 1, 1, 1}, {1, 1, 1, 1}, MemoryFormat::ChannelsLast));
  EXPECT_TRUE(isContiguousAs({2, 0, 4, 5}, {7, 7, 7, 7}, MemoryFormat::ChannelsLast)) << "empty";
  EXPECT_FALSE(isContiguousAs({2, 3}, {3, 1}, MemoryFormat::ChannelsLast)) << "wrong rank";
  EXPECT_FALSE(isContiguousAs({3}, {2}, MemoryFormat::Contiguous));
}

TEST(DimnameTest, NamesAreInternedAndTheWildcardMatchesAll) {
  static_assert(sizeof(Dimname) == sizeof(void*) && std::is_trivially_copyable_v<Dimname>);
  const Dimname n = Dimname::fromString("N");
  const std::string built = std::string("N");
  EXPECT_EQ(Dimname::fromString(built), n);
  EXPECT_EQ(Dimname::fromString("N").name().data(), n.name().data()) << "one interned string per name";
  EXPECT_NE(Dimname::fromString("C"), n);
  EXPECT_FALSE(n.isWildcard());
  EXPECT_TRUE(Dimname::fromString("*").isWildcard());
  EXPECT_EQ(Dimname::fromString("*"), Dimname::wildcard());
  EXPECT_EQ(Dimname::wildcard().name(), "*");
  EXPECT_TRUE(Dimname::wildcard().matches(n));
  EXPECT_TRUE(n.matches(Dimname::wildcard()));
  EXPECT_TRUE(n.matches(n));
  EXPECT_FALSE(n.matches(Dimname::fromString("C")));
  EXPECT_EQ(str(Dimname::fromString("channels_2")), "channels_2");
}

TEST(DimnameTest, InvalidNamesAreRejected) {
  EXPECT_THAT(errorOf([] { Dimname::fromString(""); }), HasSubstr("invalid dimension name ''"));
  EXPECT_THAT(errorOf([] { Dimname::fromString("2d"); }), HasSubstr("invalid dimension name '2d': a name is an identifier"));
  EXPECT_THAT(errorOf([] { Dimname::fromString("a b"); }), HasSubstr("invalid dimension name 'a b'"));
  EXPECT_THAT(errorOf([] { Dimname::fromString("**"); }), HasSubstr("invalid dimension name '**'"));
}

TEST(DimnameTest, InterningFromManyThreadsGivesOneNamePerString) {
  std::vector<std::thread> threads;
  std::vector<Dimname> seen(8, Dimname::wildcard());
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&seen, t] {
      for (int i = 0; i < 200; ++i) Dimname::fromString("name_" + std::to_string(i));
      seen[t] = Dimname::fromString("shared");
    });
  }
  for (std::thread& t : threads) t.join();
  for (const Dimname& d : seen) EXPECT_EQ(d, seen[0]);
}

TEST(StreamTest, DeviceAndIdValue) {
  static_assert(sizeof(Stream) == 8 && std::is_trivially_copyable_v<Stream>);
  const Stream s(Device(DeviceType::CUDA, 1), 4);
  EXPECT_EQ(s.device, Device(DeviceType::CUDA, 1));
  EXPECT_EQ(s.id, 4);
  EXPECT_FALSE(s.isDefault());
  EXPECT_TRUE(Stream().isDefault());
  EXPECT_EQ(Stream().device, Device(DeviceType::CPU));
  EXPECT_EQ(s, Stream(Device(DeviceType::CUDA, 1), 4));
  EXPECT_NE(s, Stream(Device(DeviceType::CUDA, 0), 4));
  EXPECT_EQ(s.str(), "stream 4 on cuda:1");
  EXPECT_EQ(str(Stream()), "stream 0 on cpu");
}

}  // namespace
}  // namespace opcore
