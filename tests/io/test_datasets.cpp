// Dataset kind detection in a folder.
#include <gtest/gtest.h>

#include "colmap_fixtures.h"
#include "tilegrad/io/datasets.h"

using namespace tilegrad;
using namespace tilegrad::io;
using namespace tilegrad::test;

TEST(Datasets, FindsEachKind) {
  {
    TempDir dir;
    dir.write("transforms_train.json", "{}");
    dir.write("transforms_test.json", "{}");
    const DatasetLayout d = find_dataset(dir.path());
    EXPECT_EQ(d.kind, DatasetKind::NerfSynthetic);
    EXPECT_STREQ(to_string(d.kind), "nerf-synthetic");
    EXPECT_EQ(d.transforms_train, dir.file("transforms_train.json"));
    EXPECT_EQ(d.transforms_val, "");
    EXPECT_EQ(d.transforms_test, dir.file("transforms_test.json"));
  }
  {
    TempDir dir;
    dir.write("transforms.json", "{}");
    const DatasetLayout d = find_dataset(dir.path());
    EXPECT_EQ(d.kind, DatasetKind::Transforms);
    EXPECT_EQ(d.transforms, dir.file("transforms.json"));
  }
  {  // a COLMAP model wins over transforms files, as in the 3DGS trainer
    TempDir dir;
    dir.write("sparse/0/cameras.txt", kColmapCamerasTxt);
    dir.write("transforms.json", "{}");
    const DatasetLayout d = find_dataset(dir.path());
    EXPECT_EQ(d.kind, DatasetKind::Colmap);
    EXPECT_EQ(d.colmap_sparse, dir.file("sparse/0"));
  }
}

TEST(Datasets, ExplainsWhatWasLookedFor) {
  TempDir dir;
  dir.write("sparse/readme.txt", "no model here");
  EXPECT_IO_ERROR(find_dataset(dir.path()), dir.path().c_str(), "no dataset found", "transforms_train.json");
  EXPECT_IO_ERROR(find_dataset(dir.file("sparse/readme.txt")), "not a folder");
}
