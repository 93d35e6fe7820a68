// opcore_bench's main: runs every benchmark with the usual console output, then prints
// opcore/<name> / libtorch/<name> for each <name> measured for both libraries (and
// opcore/<name>_borrowed / libtorch/<name>: libtorch has no borrowed arguments), and the
// dispatcher's own overhead (typed_call - direct_call). Times are CPU time per iteration:
// on a shared machine it is less disturbed by preemption than wall time, and every benchmark
// here is single-threaded, so the two otherwise agree.
//
// Unless told otherwise, each benchmark runs as 20 repetitions of at least 0.05 s, in random
// order across benchmarks (kDefaultFlags), and the ratios are given both from the fastest
// repetition of each side and from the medians. Noise on a shared machine only ever adds
// time, and comes in spells (the project's machine ran whole repetitions at 1.9x for
// seconds): the fastest repetition is the stable figure, the median shows the spread.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

constexpr std::string_view kOpcore = "opcore/";
constexpr std::string_view kLibtorch = "libtorch/";
constexpr std::string_view kBorrowed = "_borrowed";

// Flag name prefix, and the flag used when the command line has none of that name.
constexpr std::pair<std::string_view, const char*> kDefaultFlags[] = {
    {"--benchmark_repetitions=", "--benchmark_repetitions=20"},
    {"--benchmark_min_time=", "--benchmark_min_time=0.05"},
    {"--benchmark_enable_random_interleaving=", "--benchmark_enable_random_interleaving=true"},
};

// The console reporter, also keeping each benchmark's CPU time per iteration in ns. When
// repeated, the console shows the aggregates only; every repetition is kept (with
// --benchmark_report_aggregates_only none reaches a reporter, and the median aggregate
// stands for them).
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  explicit RecordingReporter(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown;
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate || run.repetitions <= 1) shown.push_back(run);
      if (run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      const double ns = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
      if (run.run_type == Run::RT_Iteration) {
        times_[name].repetitions.push_back(ns);
      } else if (run.aggregate_name == "median") {
        times_[name].median_aggregate = ns;
      }
    }
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
  }

  // The names of the benchmarks that ran, sorted (repetitions run in random order).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, times] : times_) out.push_back(name);
    return out;
  }

  // CPU ns per iteration of `name` over its repetitions: the fastest, and the median;
  // negative when `name` did not run.
  double fastest(const std::string& name) const {
    const std::vector<double> v = sorted(name);
    return v.empty() ? -1 : v.front();
  }
  double median(const std::string& name) const {
    const std::vector<double> v = sorted(name);
    if (v.empty()) return -1;
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

 private:
  struct Times {
    std::vector<double> repetitions;
    double median_aggregate = -1;
  };
  std::vector<double> sorted(const std::string& name) const {
    const auto it = times_.find(name);
    if (it == times_.end()) return {};
    std::vector<double> v = it->second.repetitions;
    if (v.empty() && it->second.median_aggregate >= 0) v.push_back(it->second.median_aggregate);
    std::sort(v.begin(), v.end());
    return v;
  }
  std::map<std::string, Times> times_;
};

// The options the library gives its own console reporter, which it does not apply to one
// passed in: --benchmark_color (auto: when stdout is a terminal) and
// --benchmark_counters_tabular. Read before benchmark::Initialize() removes the flags.
benchmark::ConsoleReporter::OutputOptions outputOptions(int argc, char** argv) {
  std::string_view color = "auto", tabular = "false";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--benchmark_color=")) color = arg.substr(arg.find('=') + 1);
    if (arg.starts_with("--benchmark_counters_tabular=")) tabular = arg.substr(arg.find('=') + 1);
  }
  const auto truthy = [](std::string_view v) { return v == "true" || v == "yes" || v == "1"; };
  const char* term = std::getenv("TERM");
  const bool terminal = isatty(STDOUT_FILENO) && term && std::string_view(term) != "dumb";
  using Console = benchmark::ConsoleReporter;
  int options = Console::OO_None;
  if (truthy(color) || (color == "auto" && terminal)) options |= Console::OO_Color;
  if (truthy(tabular)) options |= Console::OO_Tabular;
  return static_cast<Console::OutputOptions>(options);
}

// argv with kDefaultFlags added where the command line has no flag of that name.
std::vector<char*> withDefaultFlags(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  for (const auto& [prefix, flag] : kDefaultFlags) {
    const bool given = std::any_of(argv + 1, argv + argc, [&](const char* a) { return std::string_view(a).starts_with(prefix); });
    if (!given) args.push_back(const_cast<char*>(flag));
  }
  return args;
}

void printOverhead(const RecordingReporter& r, std::string_view library) {
  const std::string typed = std::string(library) + "typed_call";
  const std::string direct = std::string(library) + "direct_call";
  const double t = r.fastest(typed), d = r.fastest(direct);
  if (t < 0 || d < 0) return;
  std::printf("dispatch overhead: %s - %s = %.1f ns\n", typed.c_str(), direct.c_str(), t - d);
}

void printSummary(const RecordingReporter& r) {
  std::printf("\nCPU time per iteration: fastest repetition [median over repetitions]\n");
  printOverhead(r, kOpcore);
#if OPCORE_BENCH_WITH_LIBTORCH
  printOverhead(r, kLibtorch);
  int rows = 0;
  for (const std::string& name : r.names()) {
    if (!name.starts_with(kOpcore)) continue;
    std::string suffix = name.substr(kOpcore.size());
    if (suffix.ends_with(kBorrowed)) suffix.resize(suffix.size() - kBorrowed.size());
    const std::string theirs = std::string(kLibtorch) + suffix;
    const double ours = r.fastest(name), theirs_ns = r.fastest(theirs);
    if (ours < 0 || theirs_ns < 0) continue;
    const double ours_median = r.median(name), theirs_median = r.median(theirs);
    std::printf("%s / %s = %.2fx (opcore %.1f ns, libtorch %.1f ns) [%.2fx: %.1f ns, %.1f ns]\n", name.c_str(),
                theirs.c_str(), ours / theirs_ns, ours, theirs_ns, ours_median / theirs_median, ours_median,
                theirs_median);
    ++rows;
  }
  if (rows == 0) std::printf("no benchmark ran for both opcore and libtorch; no ratios\n");
#else
  std::printf("libtorch: not installed (run bench/setup.sh); no ratios\n");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  RecordingReporter reporter(outputOptions(argc, argv));
  std::vector<char*> args = withDefaultFlags(argc, argv);
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);  // argv[argc], as for main's
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  printSummary(reporter);
  return 0;
}
