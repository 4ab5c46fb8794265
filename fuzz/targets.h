// Fuzz targets: each feeds raw bytes to a group of tilegrad's file readers. Shared by the libFuzzer harness
// (harness.cpp) and the corpus-replay test that runs in CI (tests/io/test_corpus_replay.cpp).
#pragma once
#include <string_view>
#include <vector>

namespace tilegrad::fuzz {

// Runs every reader of the group on the bytes. A reader may accept the input or reject it with a
// tilegrad::Error (caught here); anything else escapes — an exception of another type, a crash, a sanitizer
// report — and is a bug. Returns how many of the group's format readers accepted the input.
using TargetFn = int (*)(std::string_view bytes);

struct Target {
  const char* name;  // also the corpus folder: fuzz/corpus/<name>/
  TargetFn run;
};

// ply: the generic PLY reader, then the 3DGS, point-cloud and mesh readers on its result.
// colmap_binary / colmap_text: the cameras, images and points3D parsers, and the pinhole conversion.
// transforms: transforms.json without touching images. mesh_text: the OBJ and OFF parsers. image: the image
// decoder (PNG, JPEG, BMP, TGA) as read_image uses it.
const std::vector<Target>& targets();
// Null when no target has that name.
const Target* find_target(std::string_view name);

}  // namespace tilegrad::fuzz
