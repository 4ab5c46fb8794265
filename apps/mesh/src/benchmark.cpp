// The mesh-energy benchmark (benchmark.h): every pass of every case timed with CUDA events (or the steady clock)
// on rotated inputs, Atomic against Owned, the hand-written gradients against the AD ones, reports and export.
#include "tilegrad/mesh/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "benchmark_cases.h"
#include "tilegrad/ad/vector_ops.h"
#include "tilegrad/core/error.h"
#include "tilegrad/profiling/report.h"
#include "tilegrad/profiling/timer.h"

namespace tilegrad::mesh {
namespace {

// Copies of the variables cycled through the timed runs, so that small meshes do not time a warm L2 (50 MB on
// an H100): as many copies as fill 128 MiB, at most 16.
template <class T>
struct RotatingInput {
  std::vector<Buffer<T>> copies;
  std::size_t next = 0;
  RotatingInput(const std::vector<T>& x, Device device) {
    const std::size_t bytes = std::max<std::size_t>(1, x.size() * sizeof(T));
    const std::size_t n = device == Device::Cuda ? std::clamp<std::size_t>((std::size_t(128) << 20) / bytes, 1, 16) : 1;
    for (std::size_t i = 0; i < n; ++i) copies.push_back(Buffer<T>::from(x, device));
  }
  View<const T> current() const { return copies[next].cview(); }
  void advance() { next = (next + 1) % copies.size(); }
};

template <class T>
bool bitwise_same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

double max_relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double scale = 0.0, worst = 0.0;
  for (float v : b) scale = std::max(scale, static_cast<double>(std::fabs(v)));
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return scale > 0 ? worst / scale : worst;
}

class Runner {
 public:
  Runner(const BenchmarkConfig& config, std::FILE* log) : m_config(config), m_log(log) {}

  template <int D>
  void run(const bench::Case<D>& c, BenchmarkReport& report) {
    const Device device = m_config.device;
    ElementProblem<float, D> problem(c.vertices, device);
    c.add_term(problem);
    const std::size_t n = c.x.size(), elements = problem.term(0).count();
    RotatingInput<float> x(c.x, device);
    std::vector<float> direction(n);
    for (std::size_t i = 0; i < n; ++i) direction[i] = std::sin(0.37f * static_cast<float>(i));
    const auto v = Buffer<float>::from(direction, device);
    Buffer<float> out(n, device);
    auto row = [&](const char* pass, const char* strategy, const profiling::Samples& s) {
      BenchmarkRow r{c.mesh, c.energy, pass, strategy, c.vertices, elements, s.median(), s.percentile(0.1),
                     s.percentile(0.9), -1.0, false};
      if (m_log) std::fprintf(m_log, "  %-10s %-20s %-12s %-7s %10.4f ms\n", c.mesh.c_str(), c.energy.c_str(), pass,
                              strategy, r.median_ms);
      report.rows.push_back(r);
      return report.rows.size() - 1;
    };
    auto time = [&](const std::function<void()>& body) {
      return profiling::time_repeated(device, m_config.warmup, m_config.reps, [&] { x.advance(); }, body);
    };

    BenchmarkCaseInfo info{c.mesh, c.energy, c.vertices, elements, 0.0, 0};
    const auto t0 = std::chrono::steady_clock::now();
    problem.hessian(x.current());  // builds the pattern and maps once
    synchronize(device);
    info.layout_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    row("energy", "-", time([&] { problem.value(x.current()); }));
    // Results at copy 0 for the comparisons.
    struct Results {
      std::vector<float> gradient, hessian, hessian_psd, hvp;
    } results[2];
    std::size_t rows[2][4];
    const Accumulation strategies[2] = {Accumulation::Owned, Accumulation::Atomic};
    for (int s = 0; s < 2; ++s) {
      problem.options().accumulation = strategies[s];
      const char* name = to_string(strategies[s]);
      rows[s][0] = row("gradient", name, time([&] { problem.gradient_only(x.current(), out.view()); }));
      // With the energy total too (what an autograd framework computes on the way).
      row("value-gradient", name, time([&] { problem.gradient(x.current(), out.view()); }));
      rows[s][1] = row("hessian", name, time([&] { problem.hessian(x.current()); }));
      rows[s][2] = row("hvp", name, time([&] { problem.hvp(x.current(), v.cview(), out.view()); }));
      x.next = 0;
      problem.gradient_only(x.current(), out.view());
      results[s].gradient = out.to_vector();
      results[s].hessian = problem.hessian(x.current()).values.to_vector();
      problem.hvp(x.current(), v.cview(), out.view());
      results[s].hvp = out.to_vector();
      if (m_config.psd) {
        problem.options().project_psd = true;
        rows[s][3] = row("hessian-psd", name, time([&] { problem.hessian(x.current()); }));
        x.next = 0;
        results[s].hessian_psd = problem.hessian(x.current()).values.to_vector();
        problem.options().project_psd = false;
      }
    }
    // Owned: repeat and compare bits; Atomic: compare with Owned.
    problem.options().accumulation = Accumulation::Owned;
    x.next = 0;
    problem.gradient_only(x.current(), out.view());
    report.rows[rows[0][0]].bitwise_repeatable = bitwise_same(out.to_vector(), results[0].gradient);
    report.rows[rows[0][1]].bitwise_repeatable =
        bitwise_same(problem.hessian(x.current()).values.to_vector(), results[0].hessian);
    problem.hvp(x.current(), v.cview(), out.view());
    report.rows[rows[0][2]].bitwise_repeatable = bitwise_same(out.to_vector(), results[0].hvp);
    report.rows[rows[1][0]].max_relative_error = max_relative_error(results[1].gradient, results[0].gradient);
    report.rows[rows[1][1]].max_relative_error = max_relative_error(results[1].hessian, results[0].hessian);
    report.rows[rows[1][2]].max_relative_error = max_relative_error(results[1].hvp, results[0].hvp);
    if (m_config.psd) {
      problem.options().project_psd = true;
      report.rows[rows[0][3]].bitwise_repeatable =
          bitwise_same(problem.hessian(x.current()).values.to_vector(), results[0].hessian_psd);
      problem.options().project_psd = false;
      report.rows[rows[1][3]].max_relative_error = max_relative_error(results[1].hessian_psd, results[0].hessian_psd);
    }
    if (c.handwritten) {
      const std::size_t r = row("handwritten", "atomic", time([&] { c.handwritten(x.current(), out.view()); }));
      x.next = 0;
      c.handwritten(x.current(), out.view());
      report.rows[r].max_relative_error = max_relative_error(out.to_vector(), results[0].gradient);
    }
    info.memory_bytes = problem.memory_bytes();
    report.cases.push_back(info);
    if (!m_config.export_dir.empty()) {
      x.next = 0;
      export_case(c, problem.value(x.current()));
    }
  }

 private:
  template <int D>
  void export_case(const bench::Case<D>& c, double energy) {
    const std::string stem = c.mesh + "_" + c.energy;
    auto write = [&](const std::string& file, const void* data, std::size_t bytes) {
      std::ofstream f(m_config.export_dir + "/" + file, std::ios::binary);
      f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
      if (!f) throw IoError(detail::concat(m_config.export_dir, "/", file, ": write failed"));
    };
    std::filesystem::create_directories(m_config.export_dir);
    write(stem + "_x.f32", c.x.data(), c.x.size() * sizeof(float));
    write(stem + "_elements.u32", c.exported.elements.data(), c.exported.elements.size() * sizeof(std::uint32_t));
    write(stem + "_data.f32", c.exported.data.data(), c.exported.data.size() * sizeof(float));
    m_manifest.push_back({{"mesh", c.mesh},
                          {"energy", c.energy},
                          {"vertices", c.vertices},
                          {"dim", D},
                          {"arity", c.exported.arity},
                          {"elements", c.exported.elements.size() / c.exported.arity},
                          {"data_width", c.exported.data_width},
                          {"params", c.exported.params},
                          {"tilegrad_energy", energy},
                          {"x", stem + "_x.f32"},
                          {"element_file", stem + "_elements.u32"},
                          {"data", stem + "_data.f32"}});
  }

 public:
  void finish() {
    if (!m_config.export_dir.empty())
      profiling::write_text_file(m_config.export_dir + "/manifest.json", nlohmann::json(m_manifest).dump(2) + "\n");
  }

 private:
  const BenchmarkConfig& m_config;
  std::FILE* m_log;
  std::vector<nlohmann::json> m_manifest;
};

}  // namespace

BenchmarkReport run_mesh_benchmark(const BenchmarkConfig& config, std::FILE* log) {
  require_device(config.device);
  BenchmarkReport report;
  Runner runner(config, log);
  for (const std::string& name : config.meshes) {
    if (!bench::benchmark_mesh_available(name, config.data_dir)) {
      if (log) std::fprintf(log, "skipping %s: not found under '%s'\n", name.c_str(), config.data_dir.c_str());
      continue;
    }
    const io::TriangleMesh rest = bench::load_benchmark_mesh(name, config.data_dir);
    if (log)
      std::fprintf(log, "%s: %zu vertices, %zu triangles\n", name.c_str(), rest.vertex_count(), rest.triangle_count());
    const bench::Cases cases = bench::make_cases(name, rest, config.energies, config.device);
    for (const auto& c : cases.spatial) runner.run(c, report);
    for (const auto& c : cases.planar) runner.run(c, report);
  }
  runner.finish();
  return report;
}

nlohmann::json benchmark_to_json(const BenchmarkConfig& config, const BenchmarkReport& report) {
  nlohmann::json rows = nlohmann::json::array(), cases = nlohmann::json::array();
  for (const BenchmarkRow& r : report.rows) {
    const nlohmann::json error = r.max_relative_error < 0 ? nlohmann::json() : nlohmann::json(r.max_relative_error);
    rows.push_back({{"mesh", r.mesh},
                    {"energy", r.energy},
                    {"pass", r.pass},
                    {"strategy", r.strategy},
                    {"vertices", r.vertices},
                    {"elements", r.elements},
                    {"median_ms", r.median_ms},
                    {"p10_ms", r.p10_ms},
                    {"p90_ms", r.p90_ms},
                    {"max_relative_error", error},
                    {"bitwise_repeatable", r.bitwise_repeatable}});
  }
  for (const BenchmarkCaseInfo& c : report.cases)
    cases.push_back({{"mesh", c.mesh},
                     {"energy", c.energy},
                     {"vertices", c.vertices},
                     {"elements", c.elements},
                     {"layout_ms", c.layout_ms},
                     {"memory_bytes", c.memory_bytes}});
  return {{"run", profiling::run_info(config.device)},
          {"precision", "float32"},
          {"warmup", config.warmup},
          {"reps", config.reps},
          {"rows", rows},
          {"cases", cases}};
}

std::string benchmark_to_markdown(const BenchmarkReport& report) {
  // One line per (mesh, energy): Owned and Atomic medians per pass, and the ratios the targets are about.
  profiling::MarkdownTable t;
  t.header = {"mesh",          "energy",          "elements",        "energy ms",          "gradient owned / atomic",
              "hand-written",  "best AD / hand",       "Hessian owned / atomic", "owned / atomic", "Hessian+PSD owned",
              "HVP owned / atomic", "checks"};
  auto find = [&](const BenchmarkCaseInfo& c, const char* pass, const char* strategy) -> const BenchmarkRow* {
    for (const BenchmarkRow& r : report.rows)
      if (r.mesh == c.mesh && r.energy == c.energy && r.pass == pass && r.strategy == strategy) return &r;
    return nullptr;
  };
  auto ms = [](const BenchmarkRow* r) { return r ? profiling::format_ms(r->median_ms) : std::string("-"); };
  // Owned bits repeated in every pass; the largest Atomic-vs-Owned and hand-written-vs-AD differences.
  auto checks = [&](const BenchmarkCaseInfo& c) {
    bool bits = true;
    double atomic = 0.0, hand = -1.0;
    for (const BenchmarkRow& r : report.rows) {
      if (r.mesh != c.mesh || r.energy != c.energy) continue;
      if (r.strategy == "owned" && r.pass != "value-gradient") bits = bits && r.bitwise_repeatable;
      if (r.pass == "handwritten") hand = r.max_relative_error;
      else if (r.strategy == "atomic") atomic = std::max(atomic, r.max_relative_error);
    }
    char text[96];
    int n = std::snprintf(text, sizeof text, "owned bits %s, atomic %.1e", bits ? "repeat" : "DIFFER", atomic);
    if (hand >= 0) std::snprintf(text + n, sizeof text - n, ", hand %.1e", hand);
    return std::string(text);
  };
  for (const BenchmarkCaseInfo& c : report.cases) {
    const BenchmarkRow *g_owned = find(c, "gradient", "owned"), *g_atomic = find(c, "gradient", "atomic");
    const BenchmarkRow *h_owned = find(c, "hessian", "owned"), *h_atomic = find(c, "hessian", "atomic");
    const BenchmarkRow* hand = find(c, "handwritten", "atomic");
    // The AD gradient at its faster accumulation against the hand-written kernel.
    const double best = g_owned && g_atomic ? std::min(g_owned->median_ms, g_atomic->median_ms) : 0.0;
    t.rows.push_back({c.mesh, c.energy, std::to_string(c.elements), ms(find(c, "energy", "-")),
                      ms(g_owned) + " / " + ms(g_atomic), ms(hand),
                      hand && best > 0 ? profiling::format_ratio(best / hand->median_ms) : "-",
                      ms(h_owned) + " / " + ms(h_atomic),
                      h_owned && h_atomic ? profiling::format_ratio(h_owned->median_ms / h_atomic->median_ms) : "-",
                      ms(find(c, "hessian-psd", "owned")),
                      ms(find(c, "hvp", "owned")) + " / " + ms(find(c, "hvp", "atomic")), checks(c)});
  }
  return t.str();
}

}  // namespace tilegrad::mesh
