// opcore_bench's main: runs every benchmark with the usual console output, then prints
// opcore/<name> / libtorch/<name> for each <name> measured for both libraries, and the
// dispatcher's own overhead (typed_call - direct_call). Times are CPU time per iteration:
// on a shared machine it is less disturbed by preemption than wall time, and every benchmark
// here is single-threaded, so the two otherwise agree.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kOpcore = "opcore/";
constexpr std::string_view kLibtorch = "libtorch/";

// The console reporter, also keeping each benchmark's CPU time per iteration in ns.
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  explicit RecordingReporter(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      if (!times_.contains(name)) order_.push_back(name);
      Times& times = times_[name];
      const double ns =
          run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
      if (run.run_type == Run::RT_Iteration) {
        times.repetitions.push_back(ns);
      } else if (run.aggregate_name == "median") {
        times.median = ns;
      }
    }
  }

  // Benchmark names in the order they ran.
  const std::vector<std::string>& names() const { return order_; }

  // CPU ns per iteration of `name`: the median over repetitions (one unless
  // --benchmark_repetitions is given); negative when `name` did not run.
  double nanoseconds(const std::string& name) const {
    const auto it = times_.find(name);
    if (it == times_.end()) return -1;
    if (it->second.median >= 0) return it->second.median;
    std::vector<double> v = it->second.repetitions;
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

 private:
  // With --benchmark_report_aggregates_only only the aggregates are reported, so the
  // "median" aggregate is kept as well as the repetitions themselves.
  struct Times {
    std::vector<double> repetitions;
    double median = -1;
  };
  std::map<std::string, Times> times_;
  std::vector<std::string> order_;
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

void printOverhead(const RecordingReporter& r, std::string_view library) {
  const std::string typed = std::string(library) + "typed_call";
  const std::string direct = std::string(library) + "direct_call";
  const double t = r.nanoseconds(typed), d = r.nanoseconds(direct);
  if (t < 0 || d < 0) return;
  std::printf("dispatch overhead: %s - %s = %.1f ns\n", typed.c_str(), direct.c_str(), t - d);
}

void printSummary(const RecordingReporter& r) {
  std::printf("\nCPU time per iteration (median over repetitions when repeated)\n");
  printOverhead(r, kOpcore);
#if OPCORE_BENCH_WITH_LIBTORCH
  printOverhead(r, kLibtorch);
  int rows = 0;
  for (const std::string& name : r.names()) {
    if (!name.starts_with(kOpcore)) continue;
    const std::string suffix = name.substr(kOpcore.size());
    const std::string theirs = std::string(kLibtorch) + suffix;
    const double ours_ns = r.nanoseconds(name), theirs_ns = r.nanoseconds(theirs);
    if (ours_ns < 0 || theirs_ns < 0) continue;
    std::printf("%s / %s = %.2fx (opcore %.1f ns, libtorch %.1f ns)\n", name.c_str(),
                theirs.c_str(), ours_ns / theirs_ns, ours_ns, theirs_ns);
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
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  printSummary(reporter);
  return 0;
}
