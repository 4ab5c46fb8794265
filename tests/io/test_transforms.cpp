// transforms.json: intrinsics from every source, per-frame overrides, image resolution, pose axes, rejections.
#include <gtest/gtest.h>

#include <cmath>

#include "io_fixtures.h"
#include "tilegrad/io/transforms.h"

using namespace tilegrad;
using namespace tilegrad::io;
using namespace tilegrad::test;

namespace {

// A camera-to-world pose (OpenGL axes) at (1, 2, 3), rotated 90 degrees about the world y axis.
const char* kPose = "[[0, 0, 1, 1], [0, 1, 0, 2], [-1, 0, 0, 3], [0, 0, 0, 1]]";

std::string frame(const std::string& path, const std::string& extra = "", const char* pose = kPose) {
  return "{\"file_path\": \"" + path + "\", " + extra + (extra.empty() ? "" : ", ") + "\"transform_matrix\": " + pose +
         "}";
}

std::string doc(const std::string& top, const std::string& frames) {
  return "{" + top + (top.empty() ? "" : ", ") + "\"frames\": [" + frames + "]}";
}

FrameOptions cameras_only() {
  FrameOptions o;
  o.require_images = false;
  return o;
}

}  // namespace

TEST(Transforms, NerfSyntheticStyleResolvesImagesAndReadsTheirSize) {
  TempDir dir;
  write_png(dir, "train/r_0.png", 8, 6);
  write_png(dir, "train/r_1.jpg.png", 8, 6);  // a name that already looks like it has an extension
  const std::string json = doc("\"camera_angle_x\": 0.5", frame("./train/r_0") + ", " + frame("train/r_1.jpg"));
  const std::string path = dir.write("transforms_train.json", json);
  const std::vector<DatasetFrame> frames = load_transforms(path);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].name, "train/r_0");
  EXPECT_EQ(frames[0].image_path, dir.path() + "/./train/r_0.png");
  EXPECT_EQ(frames[1].image_path, dir.path() + "/train/r_1.jpg.png");
  const raster::Camera& c = frames[0].camera;
  EXPECT_EQ(c.width, 8);
  EXPECT_EQ(c.height, 6);
  EXPECT_FLOAT_EQ(c.fx, float(0.5 * 8 / std::tan(0.25)));
  EXPECT_EQ(c.fy, c.fx);
  EXPECT_EQ(c.cx, 4.0f);
  EXPECT_EQ(c.cy, 3.0f);
  // The camera sits at the matrix's translation and looks along its -z column (OpenGL): the world point one
  // unit ahead, (1, 2, 3) + (-1, 0, 0), lands at depth 1 on the principal point.
  const Vec3<float> centre = c.position();
  EXPECT_NEAR(centre[0], 1.0f, 1e-6);
  EXPECT_NEAR(centre[1], 2.0f, 1e-6);
  EXPECT_NEAR(centre[2], 3.0f, 1e-6);
  const Vec3<float> ahead = c.rotation * Vec3<float>{{0.0f, 2.0f, 3.0f}} + c.translation;
  EXPECT_NEAR(ahead[0], 0.0f, 1e-6);
  EXPECT_NEAR(ahead[1], 0.0f, 1e-6);
  EXPECT_NEAR(ahead[2], 1.0f, 1e-6);
  // OpenGL's y (up) becomes OpenCV's -y (down): a point above the camera has negative camera y.
  const Vec3<float> above = c.rotation * Vec3<float>{{1.0f, 3.0f, 3.0f}} + c.translation;
  EXPECT_NEAR(above[1], -1.0f, 1e-6);
}

TEST(Transforms, InstantNgpIntrinsicsWithPerFrameOverrides) {
  const std::string json =
      doc("\"fl_x\": 100, \"fl_y\": 110, \"cx\": 31.5, \"cy\": 20.25, \"w\": 64, \"h\": 40, "
          "\"k1\": 0, \"camera_model\": \"OPENCV\", \"aabb_scale\": 16",
          frame("a.png") + ", " + frame("b", "\"fl_x\": 50, \"w\": 32, \"h\": 16") + ", " +
              frame("c", "", "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]"));
  const std::vector<DatasetFrame> f = parse_transforms(json, "t.json", "/nowhere", cameras_only());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].camera.fx, 100.0f);
  EXPECT_EQ(f[0].camera.fy, 110.0f);
  EXPECT_EQ(f[0].camera.cx, 31.5f);
  EXPECT_EQ(f[0].camera.cy, 20.25f);
  EXPECT_EQ(f[0].camera.width, 64);
  EXPECT_EQ(f[0].image_path, "/nowhere/a.png");
  EXPECT_EQ(f[1].camera.fx, 50.0f);
  EXPECT_EQ(f[1].camera.fy, 110.0f);
  EXPECT_EQ(f[1].camera.width, 32);
  EXPECT_EQ(f[1].camera.height, 16);
  EXPECT_EQ(f[1].camera.cx, 31.5f);             // the top-level principal point still applies
  EXPECT_EQ(f[2].camera.translation[2], 0.0f);  // 3x4 matrices are accepted
  // Only one focal length given: square pixels.
  const auto g = parse_transforms(doc("\"fl_y\": 70, \"w\": 8, \"h\": 8", frame("x")), "t.json", "/", cameras_only());
  EXPECT_EQ(g[0].camera.fx, 70.0f);
  EXPECT_EQ(g[0].camera.cx, 4.0f);
}

TEST(Transforms, RejectsBadFiles) {
  const FrameOptions o = cameras_only();
  const std::string intr = "\"fl_x\": 10, \"w\": 8, \"h\": 6";
  const auto parse = [&](const std::string& json) { return parse_transforms(json, "t.json", "/nowhere", o); };
  EXPECT_IO_ERROR(parse("{\"frames\": ["), "t.json", "invalid JSON");
  EXPECT_IO_ERROR(parse("[1, 2]"), "expected a JSON object");
  EXPECT_IO_ERROR(parse("{}"), "missing 'frames' array");
  EXPECT_IO_ERROR(parse(doc(intr, "")), "'frames' is empty");
  EXPECT_IO_ERROR(parse(doc(intr, "3")), "frame 0: expected an object");
  EXPECT_IO_ERROR(parse(doc(intr, "{\"transform_matrix\": []}")), "frame 0: missing 'file_path'");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a") + ", {\"file_path\": \"b\"}")),
                  "frame 1 ('b'): missing 'transform_matrix'");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a", "", "[[1, 0, 0]]"))), "must be 4 rows (or 3) of 4 numbers");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a", "", "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, \"x\"]]"))),
                  "'transform_matrix' row 2 must be 4 numbers");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a", "", "[[1, 0, 0, 1e300], [0, 1, 0, 0], [0, 0, 1, 0]]"))), "frame 0 ('a')",
                  "'transform_matrix'[0][3] = 1e+300 is not a finite float");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a", "", "[[1, 0, 0, 1e999], [0, 1, 0, 0], [0, 0, 1, 0]]"))), "invalid JSON",
                  "number overflow");
  EXPECT_IO_ERROR(parse(doc(intr, frame("a", "", "[[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0]]"))), "frame 0 ('a')",
                  "not orthonormal");
  EXPECT_IO_ERROR(parse(doc("\"fl_x\": \"10\", \"w\": 8, \"h\": 6", frame("a"))), "'fl_x' must be a number");
  EXPECT_IO_ERROR(parse(doc("\"fl_x\": 10, \"w\": 0, \"h\": 6", frame("a"))), "zero-sized image (w = 0)");
  EXPECT_IO_ERROR(parse(doc("\"fl_x\": 10, \"w\": 8.5, \"h\": 6", frame("a"))), "'w' = 8.5 is not a valid image size");
  EXPECT_IO_ERROR(parse(doc("\"w\": 8, \"h\": 6", frame("a"))), "no focal length");
  EXPECT_IO_ERROR(parse(doc("\"fl_x\": -10, \"w\": 8, \"h\": 6", frame("a"))), "focal lengths must be positive");
  EXPECT_IO_ERROR(parse(doc("\"camera_angle_x\": 4, \"w\": 8, \"h\": 6", frame("a"))), "is not an angle in (0, pi)");
  EXPECT_IO_ERROR(parse(doc(intr + ", \"camera_model\": \"EQUIRECTANGULAR\"", frame("a"))),
                  "camera_model 'EQUIRECTANGULAR' is not supported", "OPENCV_FISHEYE");
  EXPECT_IO_ERROR(parse(doc("\"fl_x\": 10", frame("a"))), "no image size", "/nowhere/a");
}

TEST(Transforms, RequiredImagesMustExistAndMatchTheCamera) {
  TempDir dir;
  const std::string intr = "\"fl_x\": 10, \"w\": 8, \"h\": 6";
  write_png(dir, "a.png", 8, 6);
  EXPECT_EQ(load_transforms(dir.write("ok.json", doc(intr, frame("a")))).size(), 1u);
  EXPECT_IO_ERROR(load_transforms(dir.write("missing.json", doc(intr, frame("./b")))), "missing.json",
                  "1 of 1 frames have no image file", "frame 0 ('./b'): ", "/./b (also tried", "image folder");
  write_png(dir, "c.png", 9, 6);
  EXPECT_IO_ERROR(load_transforms(dir.write("size.json", doc(intr, frame("c")))), "c.png is 9x6 but the camera is 8x6");
  dir.write("d.png", "not a png");
  EXPECT_IO_ERROR(load_transforms(dir.write("bad.json", doc("\"fl_x\": 10", frame("d")))), "d.png",
                  "not a readable image");
  EXPECT_IO_ERROR(load_transforms(dir.file("none.json")), "none.json", "not found");
}

TEST(Transforms, LensCoefficientsFollowInstantNgpAndNerfstudio) {
  const std::string intr = "\"fl_x\": 300, \"w\": 640, \"h\": 480";
  const auto parse = [&](const std::string& json) {
    return parse_transforms(json, "t.json", "/nowhere", cameras_only());
  };
  // Radial-tangential OpenCV coefficients (instant-ngp / nerfstudio OPENCV), per frame or at the top level.
  auto f = parse(doc(intr + ", \"k1\": -0.1, \"p2\": 0.002",
                     frame("a") + ", " + frame("b", "\"k2\": 0.03, \"k1\": 0") + ", " +
                         frame("c", "\"k3\": 0.01")));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].lens.model, raster::LensModel::OpenCV);
  EXPECT_EQ(f[0].lens.params[0], -0.1);
  EXPECT_EQ(f[0].lens.params[3], 0.002);  // k1 k2 p1 p2
  EXPECT_EQ(f[1].lens.params[0], 0.0);
  EXPECT_EQ(f[1].lens.params[1], 0.03);
  // k3 (the r^6 term) needs FULL_OPENCV: k1 k2 p1 p2 k3 k4 k5 k6.
  EXPECT_EQ(f[2].lens.model, raster::LensModel::FullOpenCV);
  EXPECT_EQ(f[2].lens.params[4], 0.01);
  EXPECT_EQ(f[2].lens.params[3], 0.002);
  // All zero is a pinhole (instant-ngp writes zeros for undistorted captures).
  f = parse(doc(intr + ", \"k1\": 0, \"k2\": 0, \"p1\": 0, \"p2\": 0, \"camera_model\": \"OPENCV\"", frame("a")));
  EXPECT_TRUE(raster::is_pinhole(f[0].lens));
  // nerfstudio's fisheye: OPENCV_FISHEYE with k1..k4.
  f = parse(doc(intr + ", \"camera_model\": \"OPENCV_FISHEYE\", \"k1\": 0.05, \"k4\": -0.001", frame("a")));
  EXPECT_EQ(f[0].lens.model, raster::LensModel::OpenCVFisheye);
  EXPECT_EQ(f[0].lens.params[0], 0.05);
  EXPECT_EQ(f[0].lens.params[3], -0.001);
}

// instant-ngp's is_fisheye changes the projection: it is honoured (OPENCV_FISHEYE with k1..k4, as instant-ngp
// reads it), never dropped; with all coefficients zero it is still the equidistant fisheye, not a pinhole.
TEST(Transforms, IsFisheyeIsNeverDropped) {
  const std::string intr = "\"fl_x\": 300, \"w\": 640, \"h\": 480";
  auto f = parse_transforms(doc(intr + ", \"is_fisheye\": true", frame("a") + ", " + frame("b", "\"k2\": 0.01")),
                            "t.json", "/nowhere", cameras_only());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].lens.model, raster::LensModel::OpenCVFisheye);
  EXPECT_FALSE(raster::is_pinhole(f[0].lens));
  EXPECT_EQ(f[1].lens.params[1], 0.01);
  f = parse_transforms(doc(intr + ", \"is_fisheye\": false", frame("a")), "t.json", "/nowhere", cameras_only());
  EXPECT_TRUE(raster::is_pinhole(f[0].lens));
}

// Every camera key that changes the geometry in a way no supported model expresses is refused by name.
TEST(Transforms, UnsupportedCameraFieldsAreRefusedByName) {
  const std::string intr = "\"fl_x\": 300, \"w\": 640, \"h\": 480";
  const auto parse = [&](const std::string& top, const std::string& extra = "") {
    return parse_transforms(doc(intr + ", " + top, frame("a", extra)), "t.json", "/nowhere", cameras_only());
  };
  EXPECT_IO_ERROR(parse("\"is_fisheye\": true, \"p1\": 0.01"), "t.json", "frame 0 ('a')", "'p1'",
                  "not part of the fisheye model");
  EXPECT_IO_ERROR(parse("\"k4\": 0.01"), "'k4'", "only the fisheye model takes k4");
  EXPECT_IO_ERROR(parse("\"k5\": 0.01"), "'k5'", "not supported");
  EXPECT_IO_ERROR(parse("\"ftheta_p0\": 0.1, \"ftheta_p1\": 300"), "'ftheta_p0' (an f-theta lens) is not supported");
  EXPECT_IO_ERROR(parse("\"rolling_shutter\": [0, 0.01, 0, 0]"), "'rolling_shutter'");
  EXPECT_IO_ERROR(parse("\"latlong\": true"), "'latlong'");
  EXPECT_IO_ERROR(parse("\"equirectangular\": true"), "'equirectangular'");
  EXPECT_IO_ERROR(parse("\"fisheye_crop_radius\": 200"), "'fisheye_crop_radius'");
  EXPECT_IO_ERROR(parse("\"aabb_scale\": 4", "\"transform_matrix_start\": [[1, 0, 0, 0]]"), "frame 0 ('a')",
                  "'transform_matrix_start'");
  EXPECT_IO_ERROR(parse("\"camera_model\": \"FISHEYE624\""), "camera_model 'FISHEYE624' is not supported");
  EXPECT_IO_ERROR(parse("\"camera_model\": \"OPENCV\", \"is_fisheye\": true"), "is_fisheye");
  EXPECT_IO_ERROR(parse("\"is_fisheye\": 1"), "'is_fisheye' must be true or false");
  // Neutral values change nothing and are accepted.
  EXPECT_EQ(parse("\"rolling_shutter\": [0, 0, 0, 0], \"latlong\": false, \"k5\": 0").size(), 1u);
}

TEST(Transforms, MissingImagesAreListedOrSkipped) {
  TempDir dir;
  const std::string intr = "\"fl_x\": 10, \"w\": 8, \"h\": 6";
  write_png(dir, "a.png", 8, 6);
  const std::string json = dir.write("t.json", doc(intr, frame("a") + ", " + frame("b") + ", " + frame("c")));
  EXPECT_IO_ERROR(load_transforms(json), "t.json", "2 of 3 frames have no image file", "frame 1 ('b')",
                  "frame 2 ('c')", "--skip-missing-images");
  FrameOptions skip;
  skip.missing_images = MissingImages::Skip;
  std::vector<std::string> skipped;
  const std::vector<DatasetFrame> f = load_transforms(json, skip, &skipped);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "a");
  EXPECT_EQ(skipped, (std::vector<std::string>{"b", "c"}));
  // Skipping every frame leaves nothing to train on: still an error.
  EXPECT_IO_ERROR(load_transforms(dir.write("none.json", doc(intr, frame("x"))), skip), "1 of 1 frames");
}

TEST(Transforms, DownscaledImageFolderScalesTheCameraAndMasksAreFound) {
  TempDir dir;
  const std::string intr = "\"fl_x\": 100, \"cx\": 40, \"cy\": 30, \"w\": 80, \"h\": 60";
  write_png(dir, "images/a.png", 80, 60);
  write_png(dir, "images_4/a.png", 20, 15);
  write_png(dir, "images_4/b.png", 21, 15);  // one pixel off: a rounding of 80 / 4, accepted
  write_png(dir, "images_4/c.png", 20, 20);  // not the same factor on both axes
  write_png(dir, "masks/a.png", 80, 60);
  FrameOptions o;
  o.image_folder = "images_4";
  const std::string json = dir.write("t.json", doc(intr, frame("images/a.png") + ", " + frame("images/b.png")));
  const std::vector<DatasetFrame> f = load_transforms(json, o);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].image_path, dir.file("images_4/a.png"));
  EXPECT_EQ(f[0].camera.width, 20);
  EXPECT_FLOAT_EQ(f[0].camera.fx, 25.0f);
  EXPECT_FLOAT_EQ(f[0].camera.cy, 7.5f);
  EXPECT_EQ(f[1].camera.width, 21);
  EXPECT_IO_ERROR(load_transforms(dir.write("c.json", doc(intr, frame("images/c.png"))), o), "c.png is 20x20",
                  "nor is it the camera's size divided by one factor");
  // Masks: a frame's own mask_path (nerfstudio), or a mask folder.
  auto m = load_transforms(dir.write("m.json", doc(intr, frame("images/a.png", "\"mask_path\": \"masks/a.png\""))));
  EXPECT_EQ(m[0].mask_path, dir.file("masks/a.png"));
  FrameOptions with_masks;
  with_masks.mask_folder = "masks";
  m = load_transforms(dir.write("n.json", doc(intr, frame("images/a.png"))), with_masks);
  EXPECT_EQ(m[0].mask_path, dir.file("masks/a.png"));
  EXPECT_IO_ERROR(
      load_transforms(dir.write("o.json", doc(intr, frame("images/a.png", "\"mask_path\": \"x.png\"")))),
      "mask not found", "x.png");
}
