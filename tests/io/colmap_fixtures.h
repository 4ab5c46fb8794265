// A small COLMAP model written as .bin and as .txt, for the COLMAP and dataset tests.
#pragma once
#include <cmath>
#include <string>

#include "io_fixtures.h"

namespace tilegrad::test {

// Camera 1: PINHOLE 10x6 (fx 20, fy 22, cx 5, cy 3); camera 2: SIMPLE_PINHOLE 8x6 (f 15, cx 4, cy 3).
// Image 7 "b.png" on camera 1, rotated 90 degrees about z, t = (1, 2, 3); image 3 "a.png" on camera 2, identity
// rotation, t = (0, 0, 4). Points: (1, 2, 3) rgb (10, 20, 30) and (-1, 0, 5) rgb (255, 0, 128).
inline constexpr double kHalfSqrt2 = 0.70710678118654752440;

inline std::string colmap_cameras_bin(std::int32_t model_of_camera_2 = 0, std::uint64_t width_of_camera_1 = 10) {
  Bytes b;
  b.le(std::uint64_t(2));
  b.le(std::uint32_t(1)).le(std::int32_t(1)).le(width_of_camera_1).le(std::uint64_t(6));
  b.le(20.0).le(22.0).le(5.0).le(3.0);
  b.le(std::uint32_t(2)).le(model_of_camera_2).le(std::uint64_t(8)).le(std::uint64_t(6));
  b.le(15.0).le(4.0).le(3.0);
  if (model_of_camera_2 == 2) b.le(0.01);  // SIMPLE_RADIAL's k
  return b.str();
}

inline std::string colmap_images_bin(std::uint32_t camera_of_image_7 = 1, double qw_of_image_3 = 1.0) {
  Bytes b;
  b.le(std::uint64_t(2));
  b.le(std::uint32_t(7)).le(kHalfSqrt2).le(0.0).le(0.0).le(kHalfSqrt2).le(1.0).le(2.0).le(3.0);
  b.le(camera_of_image_7).text(std::string("b.png", 6));  // with the terminating NUL
  b.le(std::uint64_t(2));
  b.le(1.5).le(2.5).le(std::uint64_t(0)).le(3.5).le(4.5).le(std::uint64_t(-1));
  b.le(std::uint32_t(3)).le(qw_of_image_3).le(0.0).le(0.0).le(0.0).le(0.0).le(0.0).le(4.0);
  b.le(std::uint32_t(2)).text(std::string("a.png", 6));
  b.le(std::uint64_t(0));
  return b.str();
}

inline std::string colmap_points_bin() {
  Bytes b;
  b.le(std::uint64_t(2));
  b.le(std::uint64_t(0)).le(1.0).le(2.0).le(3.0).le(std::uint8_t(10)).le(std::uint8_t(20)).le(std::uint8_t(30));
  b.le(0.5).le(std::uint64_t(2)).le(std::uint32_t(7)).le(std::uint32_t(0)).le(std::uint32_t(3)).le(std::uint32_t(5));
  b.le(std::uint64_t(1)).le(-1.0).le(0.0).le(5.0).le(std::uint8_t(255)).le(std::uint8_t(0)).le(std::uint8_t(128));
  b.le(0.25).le(std::uint64_t(0));
  return b.str();
}

inline const char* kColmapCamerasTxt =
    "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n"
    "1 PINHOLE 10 6 20 22 5 3\n2 SIMPLE_PINHOLE 8 6 15 4 3\n";
inline const char* kColmapImagesTxt =
    "# Image list with two lines of data per image:\n"
    "7 0.70710678118654752440 0 0 0.70710678118654752440 1 2 3 1 b.png\n1.5 2.5 0 3.5 4.5 -1\n"
    "3 1 0 0 0 0 0 4 2 a.png\n\n";
inline const char* kColmapPointsTxt = "# 3D point list\n0 1 2 3 10 20 30 0.5 7 0 3 5\n1 -1 0 5 255 0 128 0.25\n";

}  // namespace tilegrad::test
