// COLMAP models: binary and text parsers field by field, the pose convention, scenes on disk, rejections.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "colmap_fixtures.h"
#include "tilegrad/io/colmap.h"

using namespace tilegrad;
using namespace tilegrad::io;
using namespace tilegrad::test;

namespace {

void expect_cameras(const std::vector<ColmapCamera>& c) {
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].id, 1u);
  EXPECT_EQ(c[0].model_id, 1);
  EXPECT_EQ(c[0].width, 10u);
  EXPECT_EQ(c[0].height, 6u);
  EXPECT_EQ(c[0].params, (std::vector<double>{20, 22, 5, 3}));
  EXPECT_EQ(c[1].id, 2u);
  EXPECT_STREQ(colmap_model_name(c[1].model_id), "SIMPLE_PINHOLE");
  EXPECT_EQ(c[1].params, (std::vector<double>{15, 4, 3}));
}

void expect_images(const std::vector<ColmapImage>& im) {
  ASSERT_EQ(im.size(), 2u);
  EXPECT_EQ(im[0].id, 7u);
  EXPECT_DOUBLE_EQ(im[0].qvec[3], kHalfSqrt2);
  EXPECT_EQ(im[0].tvec[2], 3.0);
  EXPECT_EQ(im[0].camera_id, 1u);
  EXPECT_EQ(im[0].name, "b.png");
  EXPECT_EQ(im[1].id, 3u);
  EXPECT_EQ(im[1].camera_id, 2u);
  EXPECT_EQ(im[1].name, "a.png");
}

void expect_points(const PointCloud& p) {
  EXPECT_EQ(p.positions, (std::vector<float>{1, 2, 3, -1, 0, 5}));
  EXPECT_EQ(p.colors, (std::vector<std::uint8_t>{10, 20, 30, 255, 0, 128}));
}

// Writes the model and 2 images of the right sizes under <dir>/<sparse>.
void write_scene(const TempDir& dir, const std::string& sparse, bool text) {
  if (text) {
    dir.write(sparse + "/cameras.txt", kColmapCamerasTxt);
    dir.write(sparse + "/images.txt", kColmapImagesTxt);
    dir.write(sparse + "/points3D.txt", kColmapPointsTxt);
  } else {
    dir.write(sparse + "/cameras.bin", colmap_cameras_bin());
    dir.write(sparse + "/images.bin", colmap_images_bin());
    dir.write(sparse + "/points3D.bin", colmap_points_bin());
  }
  write_png(dir, "images/a.png", 8, 6);
  write_png(dir, "images/b.png", 10, 6);
}

}  // namespace

TEST(Colmap, BinaryParsersReadEveryField) {
  expect_cameras(parse_colmap_cameras_bin(colmap_cameras_bin(), "cameras.bin"));
  expect_images(parse_colmap_images_bin(colmap_images_bin(), "images.bin"));
  expect_points(parse_colmap_points3d_bin(colmap_points_bin(), "points3D.bin"));
}

TEST(Colmap, TextParsersReadEveryField) {
  expect_cameras(parse_colmap_cameras_txt(kColmapCamerasTxt, "cameras.txt"));
  expect_images(parse_colmap_images_txt(kColmapImagesTxt, "images.txt"));
  expect_points(parse_colmap_points3d_txt(kColmapPointsTxt, "points3D.txt"));
  // An image whose 2D-point line is missing at the very end of the file, and a name with a space.
  const auto im = parse_colmap_images_txt("1 1 0 0 0 0 0 0 1 my photo.jpg", "images.txt");
  ASSERT_EQ(im.size(), 1u);
  EXPECT_EQ(im[0].name, "my photo.jpg");
}

TEST(Colmap, ModelTable) {
  EXPECT_EQ(colmap_model_id("PINHOLE"), 1);
  EXPECT_EQ(colmap_model_id("OPENCV"), 4);
  EXPECT_EQ(colmap_model_param_count(colmap_model_id("FULL_OPENCV")), 12);
  EXPECT_EQ(colmap_model_id("FANCY"), -1);
  EXPECT_EQ(colmap_model_name(42), nullptr);
}

TEST(Colmap, PoseIsWorldToCameraInOpenCvAxes) {
  const auto cameras = parse_colmap_cameras_bin(colmap_cameras_bin(), "cameras.bin");
  const auto images = parse_colmap_images_bin(colmap_images_bin(), "images.bin");
  const raster::Camera c = colmap_camera(cameras[0], images[0], "cameras.bin");
  EXPECT_EQ(c.fx, 20.0f);
  EXPECT_EQ(c.fy, 22.0f);
  EXPECT_EQ(c.cx, 5.0f);
  EXPECT_EQ(c.cy, 3.0f);
  EXPECT_EQ(c.width, 10);
  EXPECT_EQ(c.height, 6);
  // 90 degrees about z: x_cam = R x_world + t with R = [[0, -1, 0], [1, 0, 0], [0, 0, 1]].
  const float expected[3][3] = {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(c.rotation(i, j), expected[i][j], 1e-6) << i << "," << j;
  EXPECT_EQ(c.translation[0], 1.0f);
  // The centre is -R^T t = -(2, -1, 3).
  const Vec3<float> centre = c.position();
  EXPECT_NEAR(centre[0], -2.0f, 1e-6);
  EXPECT_NEAR(centre[1], 1.0f, 1e-6);
  EXPECT_NEAR(centre[2], -3.0f, 1e-6);
  const raster::Camera simple = colmap_camera(cameras[1], images[1], "cameras.bin");
  EXPECT_EQ(simple.fx, 15.0f);
  EXPECT_EQ(simple.fy, 15.0f);
  EXPECT_EQ(simple.cx, 4.0f);
}

TEST(Colmap, LoadsScenesFromSparse0OrSparseInBinaryOrText) {
  for (const bool text : {false, true}) {
    for (const char* sparse : {"sparse/0", "sparse"}) {
      TempDir dir;
      write_scene(dir, sparse, text);
      const ColmapScene scene = load_colmap_scene(dir.path());
      EXPECT_EQ(scene.sparse_dir, dir.file(sparse));
      ASSERT_EQ(scene.frames.size(), 2u);
      EXPECT_EQ(scene.frames[0].name, "a.png");  // sorted by name
      EXPECT_EQ(scene.frames[0].image_path, dir.file("images/a.png"));
      EXPECT_EQ(scene.frames[0].camera.width, 8);
      EXPECT_EQ(scene.frames[1].name, "b.png");
      EXPECT_EQ(scene.frames[1].camera.fy, 22.0f);
      expect_points(scene.points);
    }
  }
}

TEST(Colmap, BinaryIsPreferredAndPointsAreOptional) {
  TempDir dir;
  dir.write("sparse/0/cameras.bin", colmap_cameras_bin());
  dir.write("sparse/0/cameras.txt", "garbage that would not parse\n");
  dir.write("sparse/0/images.txt", kColmapImagesTxt);
  const ColmapModel m = read_colmap_model(dir.file("sparse/0"));
  EXPECT_EQ(m.cameras_file, dir.file("sparse/0/cameras.bin"));
  EXPECT_EQ(m.points_file, "");
  EXPECT_EQ(m.points.size(), 0u);
  EXPECT_EQ(m.images.size(), 2u);
}

TEST(Colmap, RejectsBadModels) {
  EXPECT_IO_ERROR(parse_colmap_cameras_bin(colmap_cameras_bin(42), "cameras.bin"), "cameras.bin",
                  "camera 2: unknown camera model id 42");
  EXPECT_IO_ERROR(parse_colmap_cameras_bin(colmap_cameras_bin(0, 0), "cameras.bin"),
                  "camera 1: zero-sized image (0x6)");
  EXPECT_IO_ERROR(parse_colmap_cameras_txt("1 FANCY 10 6 1 2 3\n", "cameras.txt"), "cameras.txt", "line 1",
                  "unknown camera model 'FANCY'");
  EXPECT_IO_ERROR(parse_colmap_cameras_txt("1 PINHOLE 10 6 1 2 3\n", "cameras.txt"),
                  "model PINHOLE takes 4 parameters, got 3");
  EXPECT_IO_ERROR(parse_colmap_cameras_txt("1 PINHOLE 10 0 1 2 3 4\n", "cameras.txt"), "zero-sized image");
  EXPECT_IO_ERROR(parse_colmap_cameras_txt("1 PINHOLE 10 6 1 2 3 4\n1 PINHOLE 10 6 1 2 3 4\n", "cameras.txt"),
                  "camera id 1 appears twice");
  EXPECT_IO_ERROR(parse_colmap_cameras_txt("1 PINHOLE -10 6 1 2 3 4\n", "cameras.txt"), "WIDTH '-10'");
  EXPECT_IO_ERROR(parse_colmap_images_txt("1 1 0 0 0 0 0 0 1\n", "images.txt"), "line 1: missing NAME");
  EXPECT_IO_ERROR(parse_colmap_points3d_txt("0 1 2 3 10 20 300 0.5\n", "points3D.txt"),
                  "line 1: B '300' is not an integer in 0..255");
  const std::string images = colmap_images_bin();
  EXPECT_IO_ERROR(parse_colmap_images_bin(images.substr(0, 60), "images.bin"), "images.bin", "declares 2 images");
  EXPECT_IO_ERROR(parse_colmap_images_bin(images.substr(0, images.size() - 1), "images.bin"),
                  "unexpected end of file in images record 1 (reading num_points2D)");
  std::string huge = colmap_points_bin();
  huge[0] = '\xff', huge[7] = '\x7f';
  EXPECT_IO_ERROR(parse_colmap_points3d_bin(huge, "points3D.bin"), "points3D.bin", "points but only");
  EXPECT_IO_ERROR(parse_colmap_cameras_bin("", "cameras.bin"), "unexpected end of file");
}

TEST(Colmap, RejectsUnusableScenes) {
  {  // a camera model without a lens here
    TempDir dir;
    write_scene(dir, "sparse/0", true);
    dir.write("sparse/0/cameras.txt",
              "1 PINHOLE 10 6 20 22 5 3\n2 THIN_PRISM_FISHEYE 8 6 15 15 4 3 0 0 0 0 0 0 0 0\n");
    EXPECT_IO_ERROR(load_colmap_scene(dir.path()), "cameras.txt", "image 'a.png' (camera 2)", "THIN_PRISM_FISHEYE",
                    "not supported", "undistort the images first");
  }
  {  // an image refers to a camera the model lacks
    TempDir dir;
    write_scene(dir, "sparse", false);
    dir.write("sparse/images.bin", colmap_images_bin(9));
    EXPECT_IO_ERROR(load_colmap_scene(dir.path()), "images.bin", "image 'b.png' (id 7) refers to camera 9");
  }
  {  // NaN pose
    TempDir dir;
    write_scene(dir, "sparse", false);
    dir.write("sparse/images.bin", colmap_images_bin(1, std::nan("")));
    EXPECT_IO_ERROR(load_colmap_scene(dir.path()), "images.bin", "image 3 ('a.png')", "quaternion is not finite");
  }
  {  // a missing image, then a wrong-sized one; without required images both are fine
    TempDir dir;
    write_scene(dir, "sparse", true);
    std::filesystem::remove(dir.file("images/b.png"));
    EXPECT_IO_ERROR(load_colmap_scene(dir.path()), "images.txt", "1 of 2 frames have no image file", "image 'b.png'",
                    "images/b.png");
    write_png(dir, "images/b.png", 9, 6);
    EXPECT_IO_ERROR(load_colmap_scene(dir.path()), "images/b.png is 9x6 but the camera is 10x6");
    FrameOptions cameras_only;
    cameras_only.require_images = false;
    std::filesystem::remove(dir.file("images/b.png"));
    EXPECT_EQ(load_colmap_scene(dir.path(), cameras_only).frames.size(), 2u);
  }
  TempDir empty;
  EXPECT_IO_ERROR(load_colmap_scene(empty.path()), "no COLMAP model");
  EXPECT_EQ(find_colmap_sparse_dir(empty.path()), "");
}

TEST(Colmap, DistortedCamerasCarryTheirLens) {
  TempDir dir;
  write_scene(dir, "sparse/0", false);
  dir.write("sparse/0/cameras.bin", colmap_cameras_bin(2));  // camera 2: SIMPLE_RADIAL f 15, cx 4, cy 3, k 0.01
  const ColmapScene scene = load_colmap_scene(dir.path());
  ASSERT_EQ(scene.frames.size(), 2u);
  const DatasetFrame& a = scene.frames[0];
  EXPECT_EQ(a.lens.model, raster::LensModel::SimpleRadial);
  EXPECT_EQ(a.lens.params[0], 0.01);
  EXPECT_EQ(a.camera.fx, 15.0f);
  EXPECT_EQ(a.camera.fy, 15.0f);
  EXPECT_EQ(a.camera.cx, 4.0f);
  EXPECT_EQ(scene.frames[1].lens.model, raster::LensModel::Pinhole);
  // Every model's intrinsics and lens parameters in COLMAP's order.
  const auto cams = parse_colmap_cameras_txt(
      "1 FULL_OPENCV 10 6 20 22 5 3 -0.3 0.1 0.001 0.002 -0.02 0.05 0.01 0.003\n"
      "2 RADIAL_FISHEYE 10 6 9 4 3 0.03 -0.005\n3 FOV 10 6 20 21 5 3 0.9\n",
      "cameras.txt");
  ColmapImage image;
  image.qvec = {1, 0, 0, 0};
  image.name = "x.png";
  const raster::Lens full = colmap_lens(cams[0], "cameras.txt");
  EXPECT_EQ(full.model, raster::LensModel::FullOpenCV);
  EXPECT_EQ(full.params[2], 0.001);  // p1
  EXPECT_EQ(full.params[7], 0.003);  // k6
  EXPECT_EQ(colmap_camera(cams[0], image, "cameras.txt").fy, 22.0f);
  const raster::Lens fisheye = colmap_lens(cams[1], "cameras.txt");
  EXPECT_EQ(fisheye.model, raster::LensModel::RadialFisheye);
  EXPECT_EQ(fisheye.params[1], -0.005);
  EXPECT_EQ(colmap_camera(cams[1], image, "cameras.txt").cy, 3.0f);
  EXPECT_EQ(colmap_lens(cams[2], "cameras.txt").params[0], 0.9);
  EXPECT_EQ(colmap_camera(cams[2], image, "cameras.txt").fy, 21.0f);
  EXPECT_IO_ERROR(colmap_lens(parse_colmap_cameras_txt("4 FOV 10 6 20 21 5 3 4.0\n", "c.txt")[0], "c.txt"),
                  "camera 4", "omega");
}

// issue 17, item 7: an images.txt record whose POINTS2D line is missing swallowed the next record (half the
// images were dropped silently); it is an error naming the line.
TEST(Colmap, MissingPoints2dLineIsAnErrorNamingTheLine) {
  const std::string text =
      "# two records without their POINTS2D lines\n"
      "1 1 0 0 0 0 0 4 1 a.jpg\n"
      "2 1 0 0 0 0 0 5 1 b.jpg\n"
      "3 1 0 0 0 0 0 6 1 c.jpg\n"
      "\n";
  EXPECT_IO_ERROR(parse_colmap_images_txt(text, "images.txt"), "images.txt", "line 3",
                  "expected the POINTS2D line of image 1 ('a.jpg', line 2)", "b.jpg");
  // Names with spaces and points lines with -1 ids still parse; an empty points line is an image without points.
  const auto ok = parse_colmap_images_txt(
      "1 1 0 0 0 0 0 4 1 my photo.jpg\n1.5 2 -1 3 4.25 17\n2 1 0 0 0 0 0 5 1 b.jpg\n\n", "images.txt");
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[1].name, "b.jpg");
  EXPECT_IO_ERROR(parse_colmap_images_txt("1 1 0 0 0 0 0 4 1 a.jpg\n1.5 2\n", "images.txt"), "line 2");
  EXPECT_IO_ERROR(parse_colmap_images_txt("1 1 0 0 0 0 0 4 1 a.jpg\n1.5 2 -2\n", "images.txt"), "line 2");
}

// issue 17, item 7: a zero quaternion in images.bin is reported against images.bin, not cameras.bin.
TEST(Colmap, ZeroQuaternionIsReportedAgainstTheImagesFile) {
  for (const bool text : {false, true}) {
    TempDir dir;
    write_scene(dir, "sparse/0", text);
    if (text) {
      dir.write("sparse/0/images.txt", "3 0 0 0 0 0 0 4 2 a.png\n\n");
    } else {
      dir.write("sparse/0/images.bin", colmap_images_bin(1, 0.0));
    }
    const std::string message = io_error_of([&] { load_colmap_scene(dir.path()); });
    EXPECT_NE(message.find(text ? "images.txt" : "images.bin"), std::string::npos) << message;
    EXPECT_NE(message.find("quaternion is zero"), std::string::npos) << message;
    EXPECT_EQ(message.find("cameras."), std::string::npos) << message;
  }
}

// issue 17, item 7: OPENCV-family cameras whose coefficients are all zero are pinholes (no resampling).
TEST(Colmap, OpenCvFamilyWithZeroCoefficientsIsPinhole) {
  TempDir dir;
  write_scene(dir, "sparse", true);
  dir.write("sparse/cameras.txt",
            "1 OPENCV 10 6 20 22 5 3 0 0 0 0\n2 FULL_OPENCV 8 6 15 15 4 3 0 0 0 0 0 0 0 0\n");
  const ColmapScene scene = load_colmap_scene(dir.path());
  ASSERT_EQ(scene.frames.size(), 2u);
  for (const DatasetFrame& f : scene.frames) EXPECT_TRUE(raster::is_pinhole(f.lens)) << f.name;
  EXPECT_EQ(scene.frames[1].camera.fy, 22.0f);
  for (const char* model : {"1 SIMPLE_RADIAL 10 6 20 5 3 0\n", "1 RADIAL 10 6 20 5 3 0 0\n", "1 FOV 10 6 20 20 5 3 0\n"})
    EXPECT_TRUE(raster::is_pinhole(colmap_lens(parse_colmap_cameras_txt(model, "c.txt")[0], "c.txt"))) << model;
  // A fisheye with zero coefficients is not a pinhole (it projects equidistantly).
  EXPECT_FALSE(raster::is_pinhole(
      colmap_lens(parse_colmap_cameras_txt("1 OPENCV_FISHEYE 10 6 20 20 5 3 0 0 0 0\n", "c.txt")[0], "c.txt")));
}

TEST(Colmap, MissingImagesAreSkippedOnRequest) {
  TempDir dir;
  write_scene(dir, "sparse", true);
  std::filesystem::remove(dir.file("images/a.png"));
  FrameOptions skip;
  skip.missing_images = MissingImages::Skip;
  const ColmapScene scene = load_colmap_scene(dir.path(), skip);
  ASSERT_EQ(scene.frames.size(), 1u);
  EXPECT_EQ(scene.frames[0].name, "b.png");
  EXPECT_EQ(scene.skipped, std::vector<std::string>{"a.png"});
}

TEST(Colmap, WrittenModelsReadBackInBothFormats) {
  ColmapModel m;
  m.cameras = {{3, 1, 640, 480, {500.25, 501.5, 320.125, 239.875}}, {5, 0, 320, 240, {250, 160, 120}}};
  ColmapImage a;
  a.id = 9;
  a.qvec = {kHalfSqrt2, 0, 0, kHalfSqrt2};
  a.tvec = {0.1, -2, 3.0000000000000004};
  a.camera_id = 3;
  a.name = "sub/my photo.png";
  ColmapImage b = a;
  b.id = 2;
  b.camera_id = 5;
  b.name = "b.png";
  m.images = {a, b};
  m.points.positions = {1, 2, 3, -0.5f, 0.25f, 1e-3f};
  m.points.colors = {10, 20, 30, 255, 0, 128};
  for (const bool text : {false, true}) {
    TempDir dir;
    write_colmap_model(dir.file("sparse/0"), m, text);
    const ColmapModel r = read_colmap_model(dir.file("sparse/0"));
    EXPECT_EQ(r.cameras_file, dir.file(text ? "sparse/0/cameras.txt" : "sparse/0/cameras.bin"));
    ASSERT_EQ(r.cameras.size(), 2u);
    EXPECT_EQ(r.cameras[0].params, m.cameras[0].params);  // exact, in either format
    EXPECT_EQ(r.cameras[1].model_id, 0);
    ASSERT_EQ(r.images.size(), 2u);
    EXPECT_EQ(r.images[0].name, "sub/my photo.png");
    EXPECT_EQ(r.images[0].qvec, a.qvec);
    EXPECT_EQ(r.images[0].tvec, a.tvec);
    EXPECT_EQ(r.images[1].camera_id, 5u);
    EXPECT_EQ(r.points.positions, m.points.positions);
    EXPECT_EQ(r.points.colors, m.points.colors);
  }
  m.images[0].name = "two\nlines";
  TempDir dir;
  EXPECT_THROW(write_colmap_model(dir.path(), m), InvalidArgument);
}

TEST(Colmap, ImageRecordOfACameraRoundTripsThePose) {
  for (const raster::Camera& c :
       {raster::Camera::look_at({{3, 1, -2}}, {{0, 0.5f, 1}}, {{0, 1, 0}}, 0.8f, 64, 48),
        raster::Camera::look_at({{-1, -4, 0.5f}}, {{0, 0, 0}}, {{0, 0, 1}}, 0.8f, 64, 48),
        raster::Camera::look_at({{0, 0, -3}}, {{0, 0, 0}}, {{0, -1, 0}}, 0.8f, 64, 48)}) {
    const ColmapImage im = colmap_image(c, 4, 2, "x.png");
    EXPECT_GE(im.qvec[0], 0.0);
    ColmapCamera cam{2, 1, 64, 48, {c.fx, c.fy, c.cx, c.cy}};
    const raster::Camera back = colmap_camera(cam, im, "cameras");
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(back.translation[i], c.translation[i], 0);
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(back.rotation(i, j), c.rotation(i, j), 2e-7) << i << j;
    }
  }
}
