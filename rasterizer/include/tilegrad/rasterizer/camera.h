// Pinhole camera: intrinsics in pixels and a rigid world-to-camera transform in OpenCV axes
// (x right, y down, z forward). Pixel (i, j) covers [i, i + 1) x [j, j + 1); its centre is (i + 0.5, j + 0.5),
// so a point at camera coordinates (x, y, z) lands at (fx x / z + cx, fy y / z + cy) in those units.
#pragma once
#include "tilegrad/core/vec.h"

namespace tilegrad::raster {

struct Camera {
  float fx = 1, fy = 1, cx = 0, cy = 0;
  int width = 0, height = 0;
  Mat3<float> rotation = Mat3<float>::identity();  // world -> camera
  Vec3<float> translation = Vec3<float>::zero();    // x_cam = rotation x_world + translation
  float near_plane = 0.01f;
  float far_plane = 1e10f;
  // Half extent (pixels) of the image around the principal point that the projection's guard band is set from
  // (ProjectionCamera::lim_x, lim_y); 0: this image's own, max(cx, width - cx) and max(cy, height - cy). A crop
  // of a larger image (crop_camera) keeps the larger image's, so that both project every Gaussian alike.
  float guard_half_width = 0.0f;
  float guard_half_height = 0.0f;

  // From a camera-to-world matrix in OpenGL axes (x right, y up, z backward; NeRF / instant-ngp), row-major 4x4.
  static Camera from_camera_to_world_opengl(const float c2w[16], float fx, float fy, float cx, float cy, int width,
                                            int height);
  // From a camera-to-world matrix in OpenCV axes, row-major 4x4.
  static Camera from_camera_to_world_opencv(const float c2w[16], float fx, float fy, float cx, float cy, int width,
                                            int height);
  // A camera at `eye` looking at `target` with `up` roughly up in the image; vertical field of view in radians.
  static Camera look_at(const Vec3<float>& eye, const Vec3<float>& target, const Vec3<float>& up, float fov_y,
                        int width, int height);

  Vec3<float> position() const;  // camera centre in world coordinates
};

// The camera of the pixels [x, x + width) x [y, y + height) of `camera`'s image: the principal point moves by
// (-x, -y) and the guard band stays the full image's. Its render equals that window of the full render up to the
// rounding of the projected centres (about 1e-7 of the principal point's magnitude, in pixels).
Camera crop_camera(const Camera& camera, int x, int y, int width, int height);

// The same view at another resolution: focal lengths, principal point and guard band scale by width / old width
// horizontally and height / old height vertically, so every image-plane point moves with the image (a world point
// at pixel p lands at p * scale). Sizes must be positive.
Camera resized_camera(const Camera& camera, int width, int height);

// Throws InvalidArgument for non-finite values, non-positive focal lengths, negative sizes, a non-rotation,
// or near >= far. Zero-sized images are valid (they render nothing).
void validate(const Camera& camera);

}  // namespace tilegrad::raster
