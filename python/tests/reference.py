"""An independent brute-force NumPy renderer (float64) of gsplat's documented rasterization math: the oracle the
tests compare tilegrad.rasterization with, so that every argument convention (quaternion order, activations,
world-to-camera viewmats, intrinsics, pixel centres, SH evaluation, eps2d, antialiasing, depth modes, backgrounds)
is checked against its definition rather than against the library itself.

It skips tile culling: scenes for it keep opacities below 0.35, where every fragment outside a Gaussian's 3-sigma
footprint is fainter than 1/255 and is skipped by both renderers anyway.
"""

import numpy as np

# Real spherical harmonics, the basis and signs of the 3DGS reference (and gsplat).
SH_C0 = 0.28209479177387814
SH_C1 = 0.4886025119029199
SH_C2 = (1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396)
SH_C3 = (-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
         1.445305721320277, -0.5900435899266435)


def sh_basis(degree, dirs):
    """[N, (degree + 1)^2] basis values for unit directions [N, 3]."""
    x, y, z = dirs[:, 0], dirs[:, 1], dirs[:, 2]
    cols = [np.full_like(x, SH_C0)]
    if degree >= 1:
        cols += [-SH_C1 * y, SH_C1 * z, -SH_C1 * x]
    if degree >= 2:
        xx, yy, zz, xy, yz, xz = x * x, y * y, z * z, x * y, y * z, x * z
        cols += [SH_C2[0] * xy, SH_C2[1] * yz, SH_C2[2] * (2 * zz - xx - yy), SH_C2[3] * xz, SH_C2[4] * (xx - yy)]
    if degree >= 3:
        cols += [SH_C3[0] * y * (3 * xx - yy), SH_C3[1] * xy * z, SH_C3[2] * y * (4 * zz - xx - yy),
                 SH_C3[3] * z * (2 * zz - 3 * xx - 3 * yy), SH_C3[4] * x * (4 * zz - xx - yy),
                 SH_C3[5] * z * (xx - yy), SH_C3[6] * x * (xx - 3 * yy)]
    return np.stack(cols, axis=1)


def quat_to_rotation(q):
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], 1)


def render(means, quats, scales, opacities, colors, viewmat, K, width, height, sh_degree=None, background=None,
           eps2d=0.3, antialiased=False, near=0.01, far=1e10):
    """One camera: (rgb [H, W, 3], alpha [H, W], accumulated depth [H, W])."""
    f64 = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    means, quats, scales, opacities, colors, viewmat, K = map(f64, (means, quats, scales, opacities, colors,
                                                                     viewmat, K))
    rot, trans = viewmat[:3, :3], viewmat[:3, 3]
    p = means @ rot.T + trans
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    r = quat_to_rotation(quats)
    m = r * scales[:, None, :]
    cov_cam = rot @ (m @ np.transpose(m, (0, 2, 1))) @ rot.T
    z = p[:, 2]
    tan_x, tan_y = 0.5 * width / fx, 0.5 * height / fy
    tx = z * np.clip(p[:, 0] / z, -(cx / fx + 0.3 * tan_x), (width - cx) / fx + 0.3 * tan_x)
    ty = z * np.clip(p[:, 1] / z, -(cy / fy + 0.3 * tan_y), (height - cy) / fy + 0.3 * tan_y)
    jac = np.zeros((len(z), 2, 3))
    jac[:, 0, 0], jac[:, 0, 2] = fx / z, -fx * tx / z ** 2
    jac[:, 1, 1], jac[:, 1, 2] = fy / z, -fy * ty / z ** 2
    cov = jac @ cov_cam @ np.transpose(jac, (0, 2, 1))
    det0 = cov[:, 0, 0] * cov[:, 1, 1] - cov[:, 0, 1] ** 2
    cov = cov + eps2d * np.eye(2)
    det = cov[:, 0, 0] * cov[:, 1, 1] - cov[:, 0, 1] ** 2
    opacity = opacities * (np.sqrt(np.maximum(det0 / det, 0.0)) if antialiased else 1.0)
    conic = np.stack([cov[:, 1, 1], -cov[:, 0, 1], cov[:, 0, 0]], 1) / det[:, None]
    u, v = fx * p[:, 0] / z + cx, fy * p[:, 1] / z + cy
    if sh_degree is None:
        rgb = colors
    else:
        campos = -rot.T @ trans
        dirs = means - campos
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        basis = sh_basis(sh_degree, dirs)
        rgb = np.maximum(np.einsum("nk,nkc->nc", basis, colors[:, :basis.shape[1]]) + 0.5, 0.0)
    valid = (z > near) & (z < far) & (det > 0)
    px, py = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    trans_ = np.ones((height, width))
    out = np.zeros((height, width, 3))
    depth = np.zeros((height, width))
    done = np.zeros((height, width), dtype=bool)
    for g in sorted(np.nonzero(valid)[0], key=lambda i: (z[i], i)):
        dx, dy = u[g] - px, v[g] - py
        sigma = 0.5 * (conic[g, 0] * dx * dx + conic[g, 2] * dy * dy) + conic[g, 1] * dx * dy
        alpha = np.minimum(0.99, opacity[g] * np.exp(-sigma))
        use = (sigma >= 0) & (alpha >= 1.0 / 255.0) & ~done
        next_t = trans_ * (1 - alpha)
        stop = use & (next_t <= 1e-4)
        done |= stop
        use &= ~stop
        w = np.where(use, alpha * trans_, 0.0)
        out += w[..., None] * rgb[g]
        depth += w * z[g]
        trans_ = np.where(use, next_t, trans_)
    bg = np.zeros(3) if background is None else f64(background)
    return out + trans_[..., None] * bg, 1 - trans_, depth
