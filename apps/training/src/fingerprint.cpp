// Dataset fingerprints (nlohmann JSON) and their differences.
#include "tilegrad/training/fingerprint.h"

#include <map>
#include <nlohmann/json.hpp>

#include "tilegrad/core/error.h"

namespace tilegrad::training {

using json = nlohmann::json;

namespace {

json view_json(const TrainingView& v) {
  const raster::Camera& c = v.camera;
  json pose = json::array();
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) pose.push_back(c.rotation(r, k));
  for (int k = 0; k < 3; ++k) pose.push_back(c.translation[k]);
  json j = {{"name", v.name}, {"width", c.width}, {"height", c.height}, {"fx", c.fx},
            {"fy", c.fy},     {"cx", c.cx},       {"cy", c.cy},         {"pose", pose}};
  // How the image was made, where it is not a plain (box-filtered) pinhole image; keys only when they apply, so
  // fingerprints of pinhole datasets keep their form.
  const ImagePlan& p = v.plan;
  if (!raster::is_pinhole(p.lens)) {
    std::string lens = raster::to_string(p.lens.model);
    for (int i = 0; i < raster::lens_param_count(p.lens.model); ++i) lens += " " + json(p.lens.params[i]).dump();
    j["lens"] = lens;
  }
  if (p.box_downscale == 0)
    j["resampling"] = std::string(to_string(p.interpolation)) + ", " + std::to_string(p.subsamples) + " x " +
                      std::to_string(p.subsamples) + " samples";
  if (!v.mask_path.empty()) j["mask"] = v.mask_path;
  if (c.near_plane != raster::Camera{}.near_plane) j["near_plane"] = c.near_plane;
  return j;
}

json parse(const std::string& text, const char* which) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InvalidArgument(std::string("dataset fingerprint (") + which + ") is not valid JSON: " + e.what());
  }
}

// Differences of the views of one split, matched by name.
void view_differences(const std::string& split, const json& saved, const json& current,
                      std::vector<std::string>& out) {
  if (saved.size() != current.size())
    out.push_back(split + " views: " + std::to_string(saved.size()) + " -> " + std::to_string(current.size()));
  std::map<std::string, const json*> before;
  for (const json& v : saved) before[v.value("name", "")] = &v;
  for (const json& v : current) {
    const std::string name = v.value("name", "");
    const auto it = before.find(name);
    if (it == before.end()) {
      out.push_back(split + " view '" + name + "': not in the checkpoint's dataset");
      continue;
    }
    std::string changed;
    for (auto f = v.begin(); f != v.end(); ++f) {
      const auto old = it->second->find(f.key());
      if (old == it->second->end() || *old != f.value()) {
        changed += changed.empty() ? "" : ", ";
        changed += f.key() == "pose" ? std::string("pose")
                                     : f.key() + " " + (old == it->second->end() ? "(absent)" : old->dump()) +
                                           " -> " + f.value().dump();
      }
    }
    if (!changed.empty()) out.push_back(split + " view '" + name + "': " + changed);
    before.erase(it);
  }
  for (const auto& [name, v] : before) out.push_back(split + " view '" + name + "': missing from this dataset");
}

}  // namespace

std::string dataset_fingerprint(const TrainingDataset& d) {
  json j;
  j["kind"] = io::to_string(d.kind);
  j["has_alpha"] = d.has_alpha;
  j["points"] = d.points.size();
  for (const char* split : {"train", "test"}) {
    json views = json::array();
    for (const TrainingView& v : std::string(split) == "train" ? d.train : d.test) views.push_back(view_json(v));
    j[split] = views;
  }
  return j.dump();
}

std::vector<std::string> fingerprint_differences(const std::string& saved_text, const std::string& current_text,
                                                 std::size_t max_lines) {
  const json saved = parse(saved_text, "saved"), current = parse(current_text, "current");
  std::vector<std::string> all;
  for (auto it = current.begin(); it != current.end(); ++it) {
    if (it.key() == "train" || it.key() == "test") continue;
    const auto old = saved.find(it.key());
    if (old == saved.end() || *old != it.value())
      all.push_back(it.key() + ": " + (old == saved.end() ? std::string("(absent)") : old->dump()) + " -> " +
                    it.value().dump());
  }
  for (const char* split : {"train", "test"})
    view_differences(split, saved.value(split, json::array()), current.value(split, json::array()), all);
  if (all.size() > max_lines) {
    const std::size_t more = all.size() - max_lines;
    all.resize(max_lines);
    all.push_back("... and " + std::to_string(more) + " more");
  }
  return all;
}

}  // namespace tilegrad::training
