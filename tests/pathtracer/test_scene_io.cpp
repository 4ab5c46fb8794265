// Scenes: built-ins, the scene files in data/scenes, JSON round trips, and rejection of bad files with a
// message naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "tilegrad/core/error.h"
#include "tilegrad/pathtracer/scene_io.h"

using namespace tilegrad;
using namespace tilegrad::pathtracer;

namespace {

const char* kGood = R"({
  "camera": {"width": 32, "height": 24, "fx": 30, "fy": 30, "cx": 16, "cy": 12,
             "camera_to_world": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -5]]},
  "spheres": [{"center": [0, 0, 0], "radius": 1, "albedo": [0.5, 0.5, 0.5], "emission": [0, 0, 0]},
              {"center": [2, 0, 0], "radius": 0.5, "albedo": [0, 0, 0], "emission": [3, 3, 3]}]
})";

// Replaces the first occurrence of `from` in the good scene.
std::string good_with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

// The parse fails with an InvalidArgument or IoError whose message contains every fragment.
template <class E = InvalidArgument>
void expect_rejected(const std::string& text, std::initializer_list<const char*> fragments) {
  try {
    parse_scene(text, "bad.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const E& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    for (const char* f : fragments) EXPECT_NE(what.find(f), std::string::npos) << "'" << f << "' not in: " << what;
  }
}

}  // namespace

TEST(SceneIo, ParsesAGoodFile) {
  const Scene s = parse_scene(kGood, "good.json");
  ASSERT_EQ(s.spheres.size(), 2u);
  EXPECT_EQ(s.camera.width, 32);
  EXPECT_FLOAT_EQ(s.camera.position[2], -5.0f);
  EXPECT_FLOAT_EQ(s.spheres[1].radius, 0.5f);
  EXPECT_TRUE(s.spheres[1].is_light());
  EXPECT_FALSE(s.spheres[0].is_light());
}

TEST(SceneIo, RoundTripsThroughJson) {
  for (const std::string name : {"emissive", "shaded", "overlap", "grid:10"}) {
    const Scene a = builtin_scene(name, 40, 30);
    const Scene b = parse_scene(scene_to_json(a), name);
    ASSERT_EQ(a.spheres.size(), b.spheres.size()) << name;
    const auto pa = pack_params(a), pb = pack_params(b);
    for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(pa[i], pb[i]) << name << " parameter " << i;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(a.camera.rotation(i, j), b.camera.rotation(i, j));
    EXPECT_EQ(a.camera.fx, b.camera.fx);
  }
}

TEST(SceneIo, LoadsTheSceneFilesOfTheRepository) {
  const std::filesystem::path dir = std::filesystem::path(TILEGRAD_SOURCE_DIR) / "data" / "scenes";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const Scene s = load_scene(entry.path().string());
    EXPECT_FALSE(s.spheres.empty()) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 3);
  const Scene e = load_scene((dir / "emissive.json").string());
  const Scene b = builtin_scene("emissive");
  EXPECT_NEAR(e.camera.fy, b.camera.fy, 1e-4f);
}

TEST(SceneIo, BuiltinScenes) {
  for (const std::string name : {"emissive", "shaded", "overlap", "grid:1", "grid:300"}) {
    const Scene s = builtin_scene(name);
    EXPECT_NO_THROW(validate_scene(s, name)) << name;
  }
  EXPECT_EQ(builtin_scene("grid:300").spheres.size(), 301u);  // + the light
  EXPECT_EQ(builtin_scene("grid:300").camera.width, 1920);
  EXPECT_EQ(builtin_scene("shaded", 64, 48).camera.height, 48);
  EXPECT_THROW(builtin_scene("nope"), InvalidArgument);
  EXPECT_THROW(builtin_scene("grid:"), InvalidArgument);
  EXPECT_THROW(builtin_scene("grid:12x"), InvalidArgument);
  EXPECT_THROW(builtin_scene("shaded", 64, 0), InvalidArgument);
  EXPECT_EQ(scene_from_spec("builtin:overlap").spheres.size(), 3u);
  EXPECT_THROW(scene_from_spec("/no/such/scene.json"), IoError);
}

TEST(SceneIo, RejectsMissingFields) {
  expect_rejected(good_with(R"("radius": 0.5, )", ""), {"spheres[1].radius", "missing"});
  expect_rejected(good_with(R"("albedo": [0.5, 0.5, 0.5], )", ""), {"spheres[0].albedo", "missing"});
  expect_rejected(good_with(R"("fx": 30, )", ""), {"camera.fx", "missing"});
  expect_rejected(R"({"camera": {"width": 4, "height": 4, "fx": 1, "fy": 1, "cx": 2, "cy": 2,
                     "camera_to_world": [[1,0,0,0],[0,1,0,0],[0,0,1,0]]}})",
                  {"spheres", "missing"});
}

TEST(SceneIo, RejectsBadValues) {
  expect_rejected(good_with(R"("radius": 0.5)", R"("radius": -0.5)"), {"spheres[1].radius", "positive", "-0.5"});
  expect_rejected(good_with(R"("radius": 1)", R"("radius": 0)"), {"spheres[0].radius", "positive"});
  expect_rejected(good_with(R"("albedo": [0.5, 0.5, 0.5])", R"("albedo": [0.5, 1.5, 0.5])"), {"spheres[0].albedo[1]"});
  expect_rejected(good_with(R"("emission": [3, 3, 3])", R"("emission": [3, -1, 3])"), {"spheres[1].emission[1]"});
  expect_rejected(good_with(R"("center": [2, 0, 0])", R"("center": [2, 0])"), {"spheres[1].center", "3 numbers"});
  expect_rejected(good_with(R"("center": [2, 0, 0])", R"("center": [2, "x", 0])"), {"spheres[1].center[1]", "number"});
  expect_rejected(good_with(R"("radius": 1)", R"("radius": "big")"), {"spheres[0].radius", "number"});
  expect_rejected(good_with(R"("width": 32)", R"("width": 0)"), {"camera", "width"});
  expect_rejected(good_with(R"("width": 32)", R"("width": 3.5)"), {"camera.width", "integer"});
  expect_rejected(good_with(R"("fx": 30)", R"("fx": -30)"), {"camera", "fx"});
  expect_rejected(good_with("[1, 0, 0, 0]", "[2, 0, 0, 0]"), {"camera", "orthonormal"});
  expect_rejected(good_with("[0, 0, 1, -5]]", "[0, 0, 1, -5], [0, 0, 1, 1]]"), {"camera.camera_to_world[3]"});
  // Beyond float: infinite, not finite. Beyond double: the JSON parser rejects it.
  expect_rejected(good_with(R"("radius": 0.5)", R"("radius": 1e300)"), {"spheres[1].radius", "finite"});
  expect_rejected<IoError>(good_with(R"("radius": 0.5)", R"("radius": 1e999)"), {"overflow"});
}

TEST(SceneIo, RejectsNaN) {
  // JSON has no NaN literal: the parser rejects it, naming the file.
  expect_rejected<IoError>(good_with(R"("radius": 0.5)", R"("radius": NaN)"), {"not valid JSON"});
  // NaN through the C++ API: the validator names the field.
  Scene s = parse_scene(kGood, "good.json");
  s.spheres[1].center[2] = std::nanf("");
  try {
    validate_scene(s, "api");
    ADD_FAILURE() << "NaN accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("spheres[1].center[2]"), std::string::npos) << e.what();
  }
}

TEST(SceneIo, RejectsUnknownKeys) {
  expect_rejected(good_with(R"("radius": 0.5, )", R"("radius": 0.5, "colour": [1, 1, 1], )"),
                  {"spheres[1].colour", "unknown"});
  expect_rejected(good_with(R"("cy": 12,)", R"("cy": 12, "skew": 0,)"), {"camera.skew", "unknown"});
  expect_rejected(good_with(R"("spheres": [)", R"("lights": [], "spheres": [)"), {"lights", "unknown"});
  expect_rejected(good_with(R"("fx": 30,)", R"("fx": 30, "look_at": {"eye": [0,0,0], "target": [0,0,1], "up": [0,1,0], "fov_y": 40},)"),
                  {"camera", "not both"});
}

TEST(SceneIo, RejectsMalformedJsonAndMissingFiles) {
  expect_rejected<IoError>("{\"camera\": ", {"not valid JSON"});
  expect_rejected<InvalidArgument>("[1, 2]", {"must be an object"});
  EXPECT_THROW(load_scene("/definitely/not/here.json"), IoError);
}
