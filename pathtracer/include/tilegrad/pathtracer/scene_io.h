// Scene files (JSON) and the built-in scenes.
//
// File format (every key required unless marked optional; unknown keys are errors):
//   { "camera": { "width": W, "height": H,
//                 either "fx", "fy", "cx", "cy" (pixels) and "camera_to_world": 3x4 or 4x4 rows [R | t]
//                        (OpenCV axes: +x right, +y down, +z forward),
//                 or     "look_at": { "eye": [x,y,z], "target": [x,y,z], "up": [x,y,z], "fov_y": degrees } },
//     "spheres": [ { "center": [x,y,z], "radius": r, "albedo": [r,g,b], "emission": [r,g,b] }, ... ] }
#pragma once
#include <string>
#include <vector>

#include "tilegrad/pathtracer/scene.h"

namespace tilegrad::pathtracer {

// Throws IoError (unreadable file, malformed JSON) or InvalidArgument (missing/unknown field, bad value),
// the message naming `source` and the field, e.g. "scene.json: spheres[1].radius: must be positive (got -1)".
Scene parse_scene(const std::string& json_text, const std::string& source = "scene");
Scene load_scene(const std::string& path);
// JSON with an explicit camera (intrinsics + camera_to_world); parse_scene reads it back exactly.
std::string scene_to_json(const Scene& scene);
void save_scene(const std::string& path, const Scene& scene);

// Built-in scenes:
//   emissive      one emissive sphere on black, on the optical axis, fully inside the frame
//   shaded        a Lambertian sphere lit by an emissive sphere, over a large ground sphere
//   overlap       two overlapping Lambertian spheres lit by an emissive sphere behind the camera
//   grid:N        N small Lambertian spheres on a grid filling the view + one light (contention sweeps)
// width/height of 0 keep the scene's default resolution (128 x 128; grid: 1920 x 1080).
Scene builtin_scene(const std::string& name, int width = 0, int height = 0);
std::vector<std::string> builtin_scene_names();

// "builtin:<name>" selects a built-in scene, anything else is a file path.
Scene scene_from_spec(const std::string& spec, int width = 0, int height = 0);

}  // namespace tilegrad::pathtracer
