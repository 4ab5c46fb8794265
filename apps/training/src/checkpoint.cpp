// Checkpoint file: "TGCKPT02", then little-endian fields: byte-order mark, iteration, adam step, SH degree,
// count, version, configuration and dataset fingerprint texts, every per-Gaussian array (parameters, moments,
// statistics) with its length, the run-state text, and last a 64-bit checksum (checksum.h) of all preceding
// bytes.
#include "tilegrad/training/checkpoint.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "checksum.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/atomic_file.h"

namespace tilegrad::training {

using detail::concat;

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'K', 'P', 'T', '0', '2'};
constexpr char kMagicPrefix[6] = {'T', 'G', 'C', 'K', 'P', 'T'};

class Writer {
 public:
  explicit Writer(io::AtomicFile& f) : m_f(f) {}
  void bytes(const void* data, std::size_t n) {
    m_f.write(data, n);
    m_sum.add(data, n);
  }
  template <class T>
  void scalar(T v) {
    bytes(&v, sizeof(T));
  }
  void text(const std::string& s) {
    scalar<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  void floats(const Buffer<float>& b) {
    const std::vector<float> host = b.to_vector();
    scalar<std::uint64_t>(host.size());
    bytes(host.data(), host.size() * sizeof(float));
  }
  // The checksum of everything written so far, then the file is complete.
  void finish() {
    const std::uint64_t sum = m_sum.value();
    m_f.write(&sum, sizeof(sum));
  }

 private:
  io::AtomicFile& m_f;
  Checksum m_sum;
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
  // Reads the trailing checksum and compares it with the bytes read before it.
  void check_sum() {
    const std::uint64_t computed = m_sum.value();
    std::uint64_t stored = 0;
    need(sizeof(stored), "checksum");
    m_f.read(reinterpret_cast<char*>(&stored), sizeof(stored));
    if (!m_f) throw IoError(concat(m_path, ": read failed (checksum)"));
    m_left -= sizeof(stored);
    if (m_left != 0) throw IoError(concat(m_path, ": unexpected data after the checkpoint"));
    if (stored != computed)
      throw IoError(concat(m_path, ": checksum mismatch: the checkpoint is corrupt (changed after it was written)"));
  }
  std::uint64_t bytes_left() const { return m_left; }

 private:
  void need(std::uint64_t bytes, const char* what) {
    if (bytes > m_left) throw IoError(concat(m_path, ": truncated checkpoint (reading ", what, ")"));
  }
  void read(void* dst, std::uint64_t bytes, const char* what) {
    need(bytes, what);
    m_f.read(static_cast<char*>(dst), std::streamsize(bytes));
    if (!m_f) throw IoError(concat(m_path, ": read failed (", what, ")"));
    m_sum.add(dst, bytes);
    m_left -= bytes;
  }
  std::ifstream& m_f;
  std::string m_path;
  std::uint64_t m_left = 0;
  Checksum m_sum;
};

const char* const kFieldNames[5] = {"means", "log_scales", "quats", "opacity_logits", "sh"};

}  // namespace

void save_checkpoint(const std::string& path, const GaussianModel& model, std::int64_t iteration,
                     const std::string& config_json, const std::string& data_json,
                     const std::function<std::string()>& state_json) {
  io::AtomicFile f(path);
  Writer w(f);
  w.bytes(kMagic, sizeof(kMagic));
  w.scalar<std::uint32_t>(0x01020304u);  // byte-order mark
  w.scalar<std::int64_t>(iteration);
  w.scalar<std::int64_t>(model.adam_step);
  w.scalar<std::int32_t>(model.params.sh_degree);
  w.scalar<std::uint64_t>(model.count());
  w.scalar<std::uint64_t>(model.params.version);
  w.text(config_json);
  w.text(data_json);
  for (const Buffer<float>* b : model.arrays()) w.floats(*b);  // the order load_checkpoint reads
  w.text(state_json ? state_json() : std::string());
  w.finish();
  f.commit();
}

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError(concat(path, ": checkpoint not found or not readable"));
  Reader r(f, path);
  char magic[sizeof(kMagic)] = {};
  for (char& c : magic) c = r.scalar<char>("header");
  if (std::memcmp(magic, kMagicPrefix, sizeof(kMagicPrefix)) != 0)
    throw IoError(concat(path, ": not a tilegrad checkpoint"));
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    throw IoError(concat(path, ": checkpoint format ", std::string(magic + 6, 2), " is not this version's (",
                         std::string(kMagic + 6, 2), "): start the run afresh"));
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
  c.data_json = r.text("dataset fingerprint");
  // GaussianModel::arrays()'s order, as save_checkpoint wrote them: the five fields of the parameters and of the
  // two Adam moments, then the three densification statistics (one float per Gaussian).
  const std::uint64_t widths[5] = {3, 3, 4, 1, std::uint64_t(3 * (degree + 1) * (degree + 1))};
  for (raster::Gaussians* g : {&c.model.params, &c.model.adam_m, &c.model.adam_v}) g->sh_degree = degree;
  const auto arrays = c.model.arrays();
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const bool field = k < 3 * 5;  // 3 Gaussians x 5 fields
    *arrays[k] = r.floats(count * (field ? widths[k % 5] : 1), field ? kFieldNames[k % 5] : "densification statistics");
  }
  c.model.params.version = version;
  c.state_json = r.text("run state");
  r.check_sum();
  return c;
}

}  // namespace tilegrad::training
