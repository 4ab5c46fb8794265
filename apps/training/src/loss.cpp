// ImageLoss: validation, scratch planes, dispatch to the CPU passes or the CUDA kernels.
#include "tilegrad/training/loss.h"

#include <cmath>

#include "cpu/loss_cpu.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"
#if TILEGRAD_WITH_CUDA
#include "cuda_backend.h"
#endif

namespace tilegrad::training {

namespace {
enum WorkspaceSlot : std::size_t { kMoments = 8, kPartials, kValues };
}

float psnr_from_mse(float mse) { return mse > 0 ? float(-10.0 * std::log10(double(mse))) : INFINITY; }

ImageLoss::ImageLoss(Device device, float lambda_dssim) : m_lambda(lambda_dssim), m_workspace(device) {
  TG_CHECK_ARG(lambda_dssim >= 0 && lambda_dssim <= 1, "lambda_dssim must be in [0, 1], got ", lambda_dssim);
  require_device(device);
}

void ImageLoss::check(const ImagePair& p) const {
  TG_CHECK_ARG(p.width > 0 && p.height > 0, "loss: empty image ", p.width, "x", p.height);
  const std::size_t pixels = std::size_t(p.width) * p.height;
  check_view(p.image, pixels * 3, device(), "loss image [H, W, 3]");
  check_view(p.target, pixels * 4, device(), "loss target [H, W, 4]");
  const bool masked = p.valid.count > 0;
  if (masked) check_view(p.valid, pixels, device(), "loss valid-pixel mask [H, W]");
  const LossWindow& w = p.window;
  if (w.total_pixels > 0) {
    TG_CHECK_ARG(w.x0 >= 0 && w.y0 >= 0 && w.x0 <= w.x1 && w.y0 <= w.y1 && w.x1 <= p.width && w.y1 <= p.height,
                 "loss window [", w.x0, ", ", w.x1, ") x [", w.y0, ", ", w.y1, ") is not inside the ", p.width, "x",
                 p.height, " image");
    // With a mask, the window's valid pixels are a part of total_pixels (which cannot be checked here).
    TG_CHECK_ARG(masked || std::size_t(w.x1 - w.x0) * std::size_t(w.y1 - w.y0) <= w.total_pixels, "loss window of ",
                 (w.x1 - w.x0) * (w.y1 - w.y0), " pixels is larger than its image of ", w.total_pixels, " pixels");
  } else if (masked) {
    TG_CHECK_ARG(p.valid_pixels > 0 && p.valid_pixels <= pixels, "loss: ", p.valid_pixels,
                 " valid pixels given for a mask of ", pixels);
  }
}

namespace {

detail::LossArgs<float> make_args(const ImagePair& p, float lambda, Workspace& ws, bool with_grad) {
  detail::LossArgs<float> a;
  a.width = p.width;
  a.height = p.height;
  a.image = p.image.data();
  a.target = p.target.data();
  for (int c = 0; c < 3; ++c) a.background[c] = p.background[c];
  a.lambda = lambda;
  a.window = make_ssim_window<float>();
  a.valid = p.valid.count > 0 ? p.valid.data() : nullptr;
  if (p.window.total_pixels > 0) {
    a.windowed = true;
    a.x0 = p.window.x0;
    a.y0 = p.window.y0;
    a.x1 = p.window.x1;
    a.y1 = p.window.y1;
    a.counted = 3 * p.window.total_pixels;
  } else {
    a.counted = 3 * (a.valid ? p.valid_pixels : std::size_t(p.width) * p.height);
  }
  // The CUDA kernels keep the moments of a tile in shared memory; the CPU passes keep them in planes.
  a.moments = ws.device() == Device::Cpu ? ws.slot<float>(kMoments, 5 * a.elements()) : nullptr;
  a.partials = with_grad ? ws.slot<float>(kPartials, 3 * a.elements()) : nullptr;
  return a;
}

void run(const detail::LossArgs<float>& a, float* values, Workspace& ws) {
  if (ws.device() == Device::Cpu) {
    detail::image_loss_cpu(a, values);
    return;
  }
#if TILEGRAD_WITH_CUDA
  cuda_backend::image_loss(a, values, ws);
#else
  (void)a, (void)values;
#endif
}

}  // namespace

void ImageLoss::backward(const ImagePair& pair, View<float> grad, View<float> values) {
  check(pair);
  check_view(View<const float>(grad), std::size_t(pair.width) * pair.height * 3, device(), "loss gradient [H, W, 3]");
  check_view(View<const float>(values), kLossValueCount, device(), "loss values [4]");
  detail::LossArgs<float> a = make_args(pair, m_lambda, m_workspace, true);
  a.grad = grad.data();
  run(a, values.data(), m_workspace);
}

LossValues ImageLoss::evaluate(const ImagePair& pair) {
  check(pair);
  detail::LossArgs<float> a = make_args(pair, m_lambda, m_workspace, false);
  a.clamp_image = true;
  float* values = m_workspace.slot<float>(kValues, kLossValueCount);
  run(a, values, m_workspace);
  float host[kLossValueCount];
  memory::copy(host, Device::Cpu, values, device(), sizeof(host));
  return {host[0], host[1], host[2], host[3]};
}

}  // namespace tilegrad::training
