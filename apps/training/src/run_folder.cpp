// Output folder checks and clearing (std::filesystem).
#include "tilegrad/training/run_folder.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "tilegrad/core/error.h"
#include "tilegrad/io/atomic_file.h"

namespace tilegrad::training {

namespace fs = std::filesystem;
using detail::concat;

const std::vector<std::string>& run_outputs() {
  static const std::vector<std::string> names = {"checkpoint.bin", "point_cloud.ply", "metrics.json", "config.json",
                                                 "cameras.json",   "train_log.jsonl", "renders"};
  return names;
}

std::string checkpoint_path(const std::string& folder) { return (fs::path(folder) / "checkpoint.bin").string(); }

namespace {

std::vector<std::string> outputs_present(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const std::string& name : run_outputs()) {
    const fs::path p = fs::path(folder) / name;
    if (fs::exists(p, ec) || fs::exists(io::partial_path(p.string()), ec)) found.push_back(name);
  }
  return found;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void check_run_folder(const std::string& folder, const RunFolderOptions& o) {
  TG_CHECK_ARG(!folder.empty(), "the output folder is not set");
  TG_CHECK_ARG(!(o.resume && o.overwrite), "resume and overwrite exclude each other: resume continues the run in ",
               folder, ", overwrite deletes it");
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw IoError(concat(folder, ": the output folder is a file"));
  fs::create_directories(folder, ec);
  if (ec) throw IoError(concat(folder, ": cannot create the output folder (", ec.message(), ")"));
  const std::string probe = (fs::path(folder) / ".tilegrad-write-test").string() + "." + std::to_string(getpid());
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) throw IoError(concat(folder, ": the output folder is not writable (", std::strerror(errno), ")"));
  std::fclose(f);
  std::remove(probe.c_str());
  if (o.resume) {
    const std::string from = o.resume_from.empty() ? checkpoint_path(folder) : o.resume_from;
    if (!fs::is_regular_file(from, ec))
      throw IoError(concat(from, ": no checkpoint to resume from (a run writes one periodically, when interrupted "
                                 "and at its end)"));
    return;
  }
  if (o.overwrite) return;
  const std::vector<std::string> found = outputs_present(folder);
  if (!found.empty())
    throw IoError(concat(folder, " holds an earlier training run (", join(found),
                         "): continue it with --resume, replace it with --overwrite (deletes those files), or "
                         "choose another --out folder"));
}

std::vector<std::string> clear_previous_run(const std::string& folder) {
  std::vector<std::string> removed;
  for (const std::string& name : run_outputs()) {
    const fs::path p = fs::path(folder) / name;
    for (const fs::path& q : {p, fs::path(io::partial_path(p.string()))}) {
      std::error_code ec;
      if (!fs::exists(q, ec)) continue;
      fs::remove_all(q, ec);
      if (ec) throw IoError(concat(q.string(), ": cannot remove (", ec.message(), ")"));
      removed.push_back(q.filename().string());
    }
  }
  return removed;
}

}  // namespace tilegrad::training
