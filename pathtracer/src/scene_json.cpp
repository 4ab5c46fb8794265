// Scene files: strict JSON reading (every field checked, unknown keys rejected) and writing.
#include <fstream>
#include <set>
#include <sstream>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/scene_io.h"

#if TILEGRAD_PATHTRACER_JSON
#include <nlohmann/json.hpp>
#endif

namespace tilegrad::pathtracer {

#if TILEGRAD_PATHTRACER_JSON
namespace {

using nlohmann::json;

// A JSON object being read: knows its path for messages and which keys were consumed.
class Node {
 public:
  Node(const json& j, std::string path, const std::string& source) : m_j(j), m_path(std::move(path)), m_source(source) {
    if (!m_j.is_object()) fail("must be an object");
  }
  bool has(const char* key) const { return m_j.contains(key); }
  const json& get(const char* key) {
    if (!m_j.contains(key)) throw InvalidArgument(detail::concat(m_source, ": ", at(key), ": missing field"));
    m_used.insert(key);
    return m_j.at(key);
  }
  float number(const char* key) {
    const json& v = get(key);
    if (!v.is_number()) throw InvalidArgument(detail::concat(m_source, ": ", at(key), ": must be a number"));
    return v.get<float>();
  }
  int integer(const char* key) {
    const json& v = get(key);
    if (!v.is_number_integer()) throw InvalidArgument(detail::concat(m_source, ": ", at(key), ": must be an integer"));
    return v.get<int>();
  }
  std::vector<float> numbers(const json& v, const std::string& where, std::size_t n) const {
    if (!v.is_array() || v.size() != n)
      throw InvalidArgument(detail::concat(m_source, ": ", where, ": must be an array of ", n, " numbers"));
    std::vector<float> out;
    for (std::size_t i = 0; i < n; ++i) {
      if (!v[i].is_number())
        throw InvalidArgument(detail::concat(m_source, ": ", where, "[", i, "]: must be a number"));
      out.push_back(v[i].get<float>());
    }
    return out;
  }
  Vec3<float> vec3(const char* key) {
    const auto v = numbers(get(key), at(key), 3);
    return {{v[0], v[1], v[2]}};
  }
  Node child(const char* key) { return Node(get(key), at(key), m_source); }
  // Every key present must have been read.
  void finish() const {
    for (auto it = m_j.begin(); it != m_j.end(); ++it)
      if (!m_used.count(it.key()))
        throw InvalidArgument(detail::concat(m_source, ": ", at(it.key().c_str()), ": unknown field"));
  }
  std::string at(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument(detail::concat(m_source, ": ", m_path.empty() ? "scene" : m_path, ": ", what));
  }
  const std::string& source() const { return m_source; }

 private:
  const json& m_j;
  std::string m_path;
  const std::string& m_source;
  std::set<std::string> m_used;
};

Camera read_camera(Node node) {
  const int width = node.integer("width"), height = node.integer("height");
  Camera cam;
  if (node.has("look_at")) {
    for (const char* k : {"fx", "fy", "cx", "cy", "camera_to_world"})
      if (node.has(k)) node.fail(detail::concat("give either look_at or fx, fy, cx, cy and camera_to_world, not both (found '", k, "')"));
    Node la = node.child("look_at");
    const Vec3<float> eye = la.vec3("eye"), target = la.vec3("target"), up = la.vec3("up");
    const float fov = la.number("fov_y");
    la.finish();
    if (!(width > 0 && height > 0)) node.fail("width and height must be positive");
    try {
      cam = look_at(eye, target, up, width, height, fov);
    } catch (const InvalidArgument& e) {
      la.fail(e.what());
    }
  } else {
    cam.width = width;
    cam.height = height;
    cam.fx = node.number("fx");
    cam.fy = node.number("fy");
    cam.cx = node.number("cx");
    cam.cy = node.number("cy");
    const json& m = node.get("camera_to_world");
    const std::string where = node.at("camera_to_world");
    if (!m.is_array() || (m.size() != 3 && m.size() != 4))
      throw InvalidArgument(detail::concat(node.source(), ": ", where, ": must be 3 or 4 rows of 4 numbers"));
    for (int i = 0; i < static_cast<int>(m.size()); ++i) {
      const auto row = node.numbers(m[i], detail::concat(where, "[", i, "]"), 4);
      if (i == 3) {
        if (row[0] != 0.0f || row[1] != 0.0f || row[2] != 0.0f || row[3] != 1.0f)
          throw InvalidArgument(detail::concat(node.source(), ": ", where, "[3]: the last row must be 0 0 0 1"));
        continue;
      }
      for (int j = 0; j < 3; ++j) cam.rotation(i, j) = row[j];
      cam.position[i] = row[3];
    }
  }
  node.finish();
  return cam;
}

Sphere read_sphere(Node node) {
  Sphere s;
  s.center = node.vec3("center");
  s.radius = node.number("radius");
  s.albedo = node.vec3("albedo");
  s.emission = node.vec3("emission");
  node.finish();
  return s;
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw IoError(detail::concat(source, ": not valid JSON: ", e.what()));
  }
  Scene scene;
  try {
    Node root(j, "", source);
    scene.camera = read_camera(root.child("camera"));
    const json& spheres = root.get("spheres");
    if (!spheres.is_array()) root.fail("spheres: must be an array");
    for (std::size_t i = 0; i < spheres.size(); ++i)
      scene.spheres.push_back(read_sphere(Node(spheres[i], detail::concat("spheres[", i, "]"), source)));
    root.finish();
  } catch (const json::exception& e) {  // e.g. a number out of an int's range
    throw InvalidArgument(detail::concat(source, ": ", e.what()));
  }
  validate_scene(scene, source);
  return scene;
}

std::string scene_to_json(const Scene& scene) {
  const Camera& c = scene.camera;
  json cam = {{"width", c.width}, {"height", c.height}, {"fx", c.fx}, {"fy", c.fy}, {"cx", c.cx}, {"cy", c.cy}};
  json m = json::array();
  for (int i = 0; i < 3; ++i) m.push_back({c.rotation(i, 0), c.rotation(i, 1), c.rotation(i, 2), c.position[i]});
  cam["camera_to_world"] = m;
  json spheres = json::array();
  auto arr = [](const Vec3<float>& v) { return json::array({v[0], v[1], v[2]}); };
  for (const Sphere& s : scene.spheres)
    spheres.push_back({{"center", arr(s.center)}, {"radius", s.radius}, {"albedo", arr(s.albedo)},
                       {"emission", arr(s.emission)}});
  return json{{"camera", cam}, {"spheres", spheres}}.dump(2) + "\n";
}

#else

Scene parse_scene(const std::string&, const std::string& source) {
  throw Unsupported(source + ": this tilegrad build has no JSON support (configure with TILEGRAD_BUILD_APPS=ON)");
}
std::string scene_to_json(const Scene&) {
  throw Unsupported("scene_to_json: this tilegrad build has no JSON support (configure with TILEGRAD_BUILD_APPS=ON)");
}

#endif

Scene load_scene(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TG_REQUIRE(in, IoError, path, ": cannot open scene file");
  std::ostringstream text;
  text << in.rdbuf();
  TG_REQUIRE(!in.bad(), IoError, path, ": read error");
  return parse_scene(text.str(), path);
}

void save_scene(const std::string& path, const Scene& scene) {
  const std::string text = scene_to_json(scene);
  std::ofstream out(path, std::ios::binary);
  TG_REQUIRE(out, IoError, path, ": cannot create scene file");
  out << text;
  TG_REQUIRE(out.good(), IoError, path, ": write error");
}

}  // namespace tilegrad::pathtracer
