"""3DGS .ply scenes and datasets (NeRF-synthetic, transforms.json, COLMAP) through the library's readers."""

from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._arrays import to_host


def read_ply(path):
    """A 3DGS .ply as a dict of NumPy arrays: means [N, 3], quats [N, 4] (w, x, y, z), log_scales [N, 3],
    opacity_logits [N], sh [N, K, 3] (coefficient-major, then RGB), sh_degree. Scales and opacities are stored raw
    (log and logit), as the format holds them: rasterization() takes np.exp(log_scales) and
    1 / (1 + np.exp(-opacity_logits))."""
    return {k: (np.asarray(v) if not isinstance(v, int) else v) for k, v in _core.read_ply(str(path)).items()}


def write_ply(path, means, quats, log_scales, opacity_logits, sh):
    """Writes a 3DGS .ply (the layout of the original trainer, read by gsplat and the viewers) from arrays of
    any framework (copied to the host)."""
    _core.write_ply(str(path), to_host(means, "means"), to_host(quats, "quats"), to_host(log_scales, "log_scales"),
                    to_host(opacity_logits, "opacity_logits"), to_host(sh, "sh"))


@dataclass
class DatasetSplit:
    """The posed images of one split, cameras in gsplat's conventions: viewmats [C, 4, 4] world-to-camera (OpenCV
    axes), Ks [C, 3, 3]; images: one uint8 [H, W, 4] premultiplied RGBA array per view (None when not loaded)."""
    names: list
    image_paths: list
    viewmats: np.ndarray
    Ks: np.ndarray
    widths: list
    heights: list
    images: list = field(repr=False)
    # Per view: uint8 [H, W], 1 where a pixel counts for the loss and the metrics (None: every pixel counts).
    valids: list = field(default=None, repr=False)

    def __len__(self):
        return len(self.names)

    @property
    def width(self):
        return self._uniform(self.widths, "width")

    @property
    def height(self):
        return self._uniform(self.heights, "height")

    def _uniform(self, values, what):
        if len(set(values)) != 1:
            raise ValueError(f"the views of this split differ in {what} ({sorted(set(values))}); index them one by one")
        return values[0]

    def target(self, index, background=(0.0, 0.0, 0.0)):
        """View `index` as float32 RGB [H, W, 3] composited on `background` (as the trainer's loss sees it)."""
        rgba = self.images[index]
        if rgba is None:
            raise ValueError("this dataset was loaded without images (images=False)")
        rgba = rgba.astype(np.float32) / 255.0
        return rgba[..., :3] + (1.0 - rgba[..., 3:4]) * np.asarray(background, dtype=np.float32)

    def targets(self, background=(0.0, 0.0, 0.0)):
        """All views as float32 [C, H, W, 3] (views of one size)."""
        _ = (self.width, self.height)  # raises for views of mixed sizes
        return np.stack([self.target(i, background) for i in range(len(self))])


@dataclass
class Dataset:
    kind: str  # as io::to_string(DatasetKind) names it ("nerf-synthetic", ...)
    root: str
    train: DatasetSplit
    test: DatasetSplit
    points: np.ndarray         # [P, 3] SfM points (empty when the dataset has none)
    points_colors: object      # [P, 3] uint8 or None
    has_alpha: bool            # images carry transparency (synthetic renders: white background)
    center: tuple              # the train cameras' centre
    extent: float              # 1.1 x the largest camera distance from it (the 3DGS scene extent)
    notes: list = field(default_factory=list)  # what loading changed (undistortion, resolution), frames left out


def _split(views):
    def stack(key, shape):
        return np.stack([np.asarray(v[key]) for v in views]) if views else np.zeros((0,) + shape, np.float32)
    return DatasetSplit(
        names=[v["name"] for v in views], image_paths=[v["image_path"] for v in views],
        viewmats=stack("viewmat", (4, 4)), Ks=stack("K", (3, 3)), widths=[v["width"] for v in views],
        heights=[v["height"] for v in views],
        images=[np.asarray(v["image"]) if "image" in v else None for v in views],
        valids=[np.asarray(v["valid"]) if "valid" in v else None for v in views])


def load_dataset(path, downscale=1, eval=False, holdout_every=8, images=True, **capture):
    """Loads a dataset folder as the trainer does (train/test splits, images decoded and checked against their
    cameras, `downscale` box-filtered). A folder without its own split holds out every `holdout_every`-th image as
    test with eval=True. `capture` takes the capture options of `tilegrad train` with '_' for '-': image_folder
    (the command's --images, e.g. "images_4"), width, max_width, undistort ("crop" or "full"), interpolation,
    masks, test_every, near_plane, skip_missing_images. Lens-distorted captures come back undistorted into pinhole
    cameras; views with pixels that do not count (undistortion borders, masks) carry a `valids` mask."""
    args = []
    for key, value in capture.items():
        flag = "--images" if key == "image_folder" else "--" + key.replace("_", "-")
        if isinstance(value, bool):
            if value:
                args.append(flag)
        else:
            args += [flag, str(value)]
    d = _core.load_dataset(str(path), int(downscale), bool(eval), int(holdout_every), bool(images), args)
    colors = d["points_colors"]
    return Dataset(kind=d["kind"], root=d["root"], train=_split(d["train"]), test=_split(d["test"]),
                   points=np.asarray(d["points"]), points_colors=None if colors is None else np.asarray(colors),
                   has_alpha=d["has_alpha"], center=d["center"], extent=d["extent"], notes=list(d["notes"]))
