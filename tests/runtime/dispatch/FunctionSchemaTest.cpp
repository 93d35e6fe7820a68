// Tests of the C++ schema parser against the conformance corpus shared with the
// generator's parser (tests/schemas/), and against every schema in yaml/.
#include <opcore/core/Error.h>
#include <opcore/dispatch/FunctionSchema.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace opcore {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> readLines(const std::string& relative_path) {
  std::ifstream in(std::string(OPCORE_SOURCE_DIR) + "/" + relative_path);
  EXPECT_TRUE(in.good()) << "cannot open " << relative_path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

TEST(FunctionSchemaTest, ValidCorpusRoundTrips) {
  const auto lines = readLines("tests/schemas/valid.txt");
  EXPECT_GE(lines.size(), 20u);
  for (const std::string& s : lines) {
    try {
      EXPECT_EQ(FunctionSchema::parse(s).str(), s);
    } catch (const Error& e) {
      ADD_FAILURE() << s << ": " << e.what();
    }
  }
}

TEST(FunctionSchemaTest, InvalidCorpusIsRejectedWithTheExpectedMessage) {
  const auto lines = readLines("tests/schemas/invalid.txt");
  EXPECT_GE(lines.size(), 10u);
  for (const std::string& line : lines) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << "corpus line without a tab: " << line;
    const std::string schema = line.substr(0, tab), expected = line.substr(tab + 1);
    try {
      FunctionSchema::parse(schema);
      ADD_FAILURE() << "accepted invalid schema: " << schema;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(expected)) << schema;
    }
  }
}

TEST(FunctionSchemaTest, EverySchemaInNativeFunctionsRoundTrips) {
  int count = 0;
  for (const std::string& line : readLines("yaml/native_functions.yaml")) {
    const std::string prefix = "- func: ";
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string s = line.substr(prefix.size());
    EXPECT_EQ(FunctionSchema::parse(s).str(), s);
    ++count;
  }
  EXPECT_GT(count, 50);
}

TEST(FunctionSchemaTest, ExposesArgumentsAndReturns) {
  auto s = FunctionSchema::parse(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(s.operatorName().name, "max");
  EXPECT_EQ(s.operatorName().overload_name, "dim");
  ASSERT_EQ(s.arguments().size(), 3u);
  EXPECT_EQ(s.arguments()[2].default_value, "False");
  ASSERT_EQ(s.returns().size(), 2u);
  EXPECT_EQ(s.returns()[1].name, "indices");

  auto out = FunctionSchema::parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_TRUE(out.arguments()[3].kwarg_only);
  EXPECT_TRUE(out.arguments()[3].type.isMutable());
  EXPECT_FALSE(out.arguments()[0].kwarg_only);
  out.setNamespaceIfNotSet("aten");
  EXPECT_EQ(out.operatorName().str(), "aten::add.out");
}

TEST(FunctionSchemaTest, ErrorsNameTheColumn) {
  try {
    FunctionSchema::parse("f(Tensr self) -> Tensor");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("invalid schema 'f(Tensr self) -> Tensor': unknown type 'Tensr' at column 3"));
  }
}

}  // namespace
}  // namespace opcore
