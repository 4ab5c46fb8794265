// Checkpoint file: "TGCKPT01", then little-endian fields: iteration, adam step, SH degree, count, version,
// configuration text, and every per-Gaussian array (parameters, moments, statistics) with its length.
#include "tilegrad/training/checkpoint.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tilegrad/core/error.h"

namespace tilegrad::training {

using detail::concat;

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'K', 'P', 'T', '0', '1'};

std::array<const Buffer<float>*, 5> fields(const raster::Gaussians& g) {
  return {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh};
}
std::array<Buffer<float>*, 5> fields(raster::Gaussians& g) {
  return {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh};
}

class Writer {
 public:
  explicit Writer(std::ofstream& f) : m_f(f) {}
  template <class T>
  void scalar(T v) {
    m_f.write(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void text(const std::string& s) {
    scalar<std::uint64_t>(s.size());
    m_f.write(s.data(), std::streamsize(s.size()));
  }
  void floats(const Buffer<float>& b) {
    const std::vector<float> host = b.to_vector();
    scalar<std::uint64_t>(host.size());
    m_f.write(reinterpret_cast<const char*>(host.data()), std::streamsize(host.size() * sizeof(float)));
  }

 private:
  std::ofstream& m_f;
};

class Reader {
 public:
  Reader(std::ifstream& f, const std::string& path) : m_f(f), m_path(path) {
    m_f.seekg(0, std::ios::end);
    m_left = std::uint64_t(m_f.tellg());
    m_f.seekg(0);
  }
  template <class T>
  T scalar(const char* what) {
    T v{};
    read(&v, sizeof(T), what);
    return v;
  }
  std::string text(const char* what) {
    const auto n = scalar<std::uint64_t>(what);
    need(n, what);
    std::string s(n, '\0');
    read(s.data(), n, what);
    return s;
  }
  // A float array that must hold `expected` values.
  Buffer<float> floats(std::uint64_t expected, const char* what) {
    const auto n = scalar<std::uint64_t>(what);
    if (n != expected) throw IoError(concat(m_path, ": ", what, " holds ", n, " values, expected ", expected));
    need(n * sizeof(float), what);
    std::vector<float> host(n);
    read(host.data(), n * sizeof(float), what);
    return Buffer<float>::from(host, Device::Cpu);
  }
  bool at_end() const { return m_left == 0; }
  std::uint64_t bytes_left() const { return m_left; }

 private:
  void need(std::uint64_t bytes, const char* what) {
    if (bytes > m_left) throw IoError(concat(m_path, ": truncated checkpoint (reading ", what, ")"));
  }
  void read(void* dst, std::uint64_t bytes, const char* what) {
    need(bytes, what);
    m_f.read(static_cast<char*>(dst), std::streamsize(bytes));
    if (!m_f) throw IoError(concat(m_path, ": read failed (", what, ")"));
    m_left -= bytes;
  }
  std::ifstream& m_f;
  std::string m_path;
  std::uint64_t m_left = 0;
};

const char* const kFieldNames[5] = {"means", "log_scales", "quats", "opacity_logits", "sh"};

}  // namespace

void save_checkpoint(const std::string& path, const GaussianModel& model, std::int64_t iteration,
                     const std::string& config_json) {
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  const std::string temp = path + ".partial";
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    if (!f) throw IoError(concat(temp, ": cannot open for writing"));
    Writer w(f);
    f.write(kMagic, sizeof(kMagic));
    w.scalar<std::uint32_t>(0x01020304u);  // byte-order mark
    w.scalar<std::int64_t>(iteration);
    w.scalar<std::int64_t>(model.adam_step);
    w.scalar<std::int32_t>(model.params.sh_degree);
    w.scalar<std::uint64_t>(model.count());
    w.scalar<std::uint64_t>(model.params.version);
    w.text(config_json);
    for (const raster::Gaussians* g : {&model.params, &model.adam_m, &model.adam_v})
      for (const Buffer<float>* b : fields(*g)) w.floats(*b);
    for (const Buffer<float>* b : {&model.grad_accum, &model.view_count, &model.max_radius}) w.floats(*b);
    f.flush();
    if (!f) throw IoError(concat(temp, ": write failed"));
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) throw IoError(concat(path, ": cannot replace the checkpoint (", ec.message(), ")"));
}

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(concat(path, ": checkpoint not found or not readable"));
  Reader r(f, path);
  char magic[sizeof(kMagic)] = {};
  for (char& c : magic) c = r.scalar<char>("header");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) throw IoError(concat(path, ": not a tilegrad checkpoint"));
  if (r.scalar<std::uint32_t>("header") != 0x01020304u)
    throw IoError(concat(path, ": checkpoint written with another byte order"));
  Checkpoint c;
  c.iteration = r.scalar<std::int64_t>("iteration");
  c.model.adam_step = r.scalar<std::int64_t>("adam step");
  const auto degree = r.scalar<std::int32_t>("SH degree");
  const auto count = r.scalar<std::uint64_t>("count");
  const auto version = r.scalar<std::uint64_t>("version");
  if (c.iteration < 0 || c.model.adam_step < 0 || degree < 0 || degree > 3 || count > r.bytes_left() / 4)
    throw IoError(
        concat(path, ": corrupt header (iteration ", c.iteration, ", SH degree ", degree, ", ", count, " Gaussians)"));
  c.config_json = r.text("configuration");
  const std::uint64_t widths[5] = {3, 3, 4, 1, std::uint64_t(3 * (degree + 1) * (degree + 1))};
  for (raster::Gaussians* g : {&c.model.params, &c.model.adam_m, &c.model.adam_v}) {
    g->sh_degree = degree;
    const auto bufs = fields(*g);
    for (int k = 0; k < 5; ++k) *bufs[std::size_t(k)] = r.floats(count * widths[k], kFieldNames[k]);
  }
  c.model.params.version = version;
  for (Buffer<float>* b : {&c.model.grad_accum, &c.model.view_count, &c.model.max_radius})
    *b = r.floats(count, "densification statistics");
  if (!r.at_end()) throw IoError(concat(path, ": unexpected data after the checkpoint"));
  return c;
}

}  // namespace tilegrad::training
