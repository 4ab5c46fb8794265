// The real datasets in ../shared/data (skipped when absent): expected counts, camera conventions checked by
// reprojecting COLMAP points, and mesh topology (closed, consistently oriented, genus 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "test_support.h"
#include "tilegrad/core/error.h"
#include "tilegrad/io/colmap.h"
#include "tilegrad/io/datasets.h"
#include "tilegrad/io/mesh.h"
#include "tilegrad/io/ply_points.h"
#include "tilegrad/io/transforms.h"

using namespace tilegrad;
using namespace tilegrad::io;

namespace {

std::string data(const std::string& relative) { return test::shared_data_dir() + "/" + relative; }

// Every directed edge once (consistent orientation) implies every undirected edge twice (closed, manifold
// edges); then V - E + F = 2 for a connected genus-0 surface.
void expect_closed_oriented_sphere(const TriangleMesh& m) {
  std::vector<std::uint64_t> directed;
  directed.reserve(m.triangles.size());
  for (std::size_t t = 0; t < m.triangle_count(); ++t)
    for (int k = 0; k < 3; ++k)
      directed.push_back(std::uint64_t(m.triangles[t * 3 + k]) << 32 | m.triangles[t * 3 + (k + 1) % 3]);
  std::sort(directed.begin(), directed.end());
  EXPECT_EQ(std::adjacent_find(directed.begin(), directed.end()), directed.end()) << "a directed edge repeats";
  for (std::uint64_t e : directed) {
    const std::uint64_t reverse = (e << 32) | (e >> 32);
    if (!std::binary_search(directed.begin(), directed.end(), reverse)) {
      ADD_FAILURE() << "boundary or inconsistently oriented edge " << (e >> 32) << "-" << (e & 0xffffffffu);
      break;
    }
  }
  const std::int64_t edges = static_cast<std::int64_t>(directed.size() / 2);
  EXPECT_EQ(std::int64_t(m.vertex_count()) - edges + std::int64_t(m.triangle_count()), 2);
}

}  // namespace

TEST(SharedData, LegoTransforms) {
  TG_REQUIRE_SHARED_DATA("nerf_synthetic_lego_400/transforms_train.json");
  const DatasetLayout layout = find_dataset(data("nerf_synthetic_lego_400"));
  ASSERT_EQ(layout.kind, DatasetKind::NerfSynthetic);
  const std::vector<DatasetFrame> train = load_transforms(layout.transforms_train);
  EXPECT_EQ(train.size(), 100u);
  EXPECT_EQ(load_transforms(layout.transforms_val).size(), 100u);
  EXPECT_EQ(load_transforms(layout.transforms_test).size(), 200u);
  const DatasetFrame& f = train[0];
  EXPECT_EQ(f.name, "train/r_0");
  EXPECT_TRUE(std::filesystem::exists(f.image_path)) << f.image_path;
  EXPECT_EQ(f.camera.width, 400);
  EXPECT_EQ(f.camera.height, 400);
  EXPECT_NEAR(f.camera.fx, 555.555, 0.01);
  EXPECT_EQ(f.camera.cx, 200.0f);
  // The cameras orbit the object at the origin, which each of them sees at its image centre (within 5%).
  for (const DatasetFrame& frame : train) {
    const Vec3<float> origin = frame.camera.translation;  // the world origin in camera coordinates
    ASSERT_GT(origin[2], 0.0f) << frame.name;
    EXPECT_NEAR(frame.camera.fx * origin[0] / origin[2] + frame.camera.cx, 200.0f, 20.0f) << frame.name;
    EXPECT_NEAR(frame.camera.fy * origin[1] / origin[2] + frame.camera.cy, 200.0f, 20.0f) << frame.name;
  }
}

TEST(SharedData, ColmapSmallPointsReprojectIntoTheImages) {
  TG_REQUIRE_SHARED_DATA("colmap_small/sparse/cameras.bin");
  EXPECT_EQ(find_dataset(data("colmap_small")).kind, DatasetKind::Colmap);
  const ColmapScene scene = load_colmap_scene(data("colmap_small"));
  EXPECT_EQ(scene.sparse_dir, data("colmap_small/sparse"));
  ASSERT_EQ(scene.frames.size(), 23u);
  EXPECT_EQ(scene.points.size(), 1443u);
  EXPECT_TRUE(scene.points.has_colors());
  EXPECT_EQ(scene.frames.front().name, "DSC_5283.jpg");
  for (const DatasetFrame& f : scene.frames) {
    EXPECT_EQ(f.camera.width, 1000);
    EXPECT_GE(f.camera.height, 656);
    EXPECT_LE(f.camera.height, 662);
    // With the right pose convention the reconstructed points lie in front of each camera and many of them
    // project inside its image (a wrong convention puts them behind or far outside).
    std::size_t inside = 0;
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      const Vec3<float> p{
          {scene.points.positions[i * 3], scene.points.positions[i * 3 + 1], scene.points.positions[i * 3 + 2]}};
      const Vec3<float> q = f.camera.rotation * p + f.camera.translation;
      if (q[2] <= 0) continue;
      const float u = f.camera.fx * q[0] / q[2] + f.camera.cx, v = f.camera.fy * q[1] / q[2] + f.camera.cy;
      inside += (u >= 0 && u < f.camera.width && v >= 0 && v < f.camera.height) ? 1 : 0;
    }
    EXPECT_GT(inside, scene.points.size() / 10) << f.name;
  }
}

TEST(SharedData, GardenPointsAndCameras) {
  TG_REQUIRE_SHARED_DATA("garden_points/points.ply");
  const PointCloud points = read_points_ply(data("garden_points/points.ply"));
  EXPECT_EQ(points.size(), 138766u);
  EXPECT_TRUE(points.has_colors());
  FrameOptions cameras_only;
  cameras_only.require_images = false;  // the benchmark cameras come without images
  const std::vector<DatasetFrame> frames = load_transforms(data("garden_points/transforms.json"), cameras_only);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].camera.width, 1920);
  EXPECT_EQ(frames[0].camera.height, 1080);
  EXPECT_NEAR(frames[0].camera.fx, 1424.0365f, 1e-3);
  EXPECT_THROW(load_transforms(data("garden_points/transforms.json")), IoError);  // images required by default
}

TEST(SharedData, Meshes) {
  TG_REQUIRE_SHARED_DATA("mesh_small_decimated_knight/decimated-knight.off");
  const TriangleMesh knight = read_mesh(data("mesh_small_decimated_knight/decimated-knight.off"));
  EXPECT_EQ(knight.vertex_count(), 502u);
  EXPECT_EQ(knight.triangle_count(), 1000u);
  expect_closed_oriented_sphere(knight);
  const TriangleMesh armadillo = read_mesh(data("mesh_medium_armadillo/armadillo.obj"));
  EXPECT_EQ(armadillo.vertex_count(), 43243u);
  EXPECT_EQ(armadillo.triangle_count(), 86482u);
  expect_closed_oriented_sphere(armadillo);
  const TriangleMesh igea = read_mesh(data("mesh_large_igea/igea.ply"));
  EXPECT_EQ(igea.vertex_count(), 134345u);
  EXPECT_EQ(igea.triangle_count(), 268686u);
  expect_closed_oriented_sphere(igea);  // checks the strip orientation rule on a real file
}
