//===- cuda_images.cpp - which device image a CUDA GPU loads --------------===//

#include "device/cuda_images.h"

#include <cstdlib>
#include <cstring>

namespace {

/// "sm_90" -> 90; 0 when malformed.
int smNumber(const char *arch) {
  if (!arch || std::strncmp(arch, "sm_", 3) != 0)
    return 0;
  return std::atoi(arch + 3);
}

} // namespace

const tandem_device_image_t *
tandem::device::chooseCudaImage(const tandem_device_image_t *images,
                                int32_t count, const char *arch) {
  const tandem_device_image_t *best = nullptr;
  int bestRank = 0, bestSm = -1;
  int deviceSm = smNumber(arch);
  for (int32_t i = 0; i < count; ++i) {
    const tandem_device_image_t &image = images[i];
    if (!image.data)
      continue;
    bool sameArch = image.arch && arch && std::strcmp(arch, image.arch) == 0;
    int rank = 0, sm = smNumber(image.arch);
    if (image.format == TANDEM_IMAGE_CUBIN && sameArch)
      rank = 4;
    else if (image.format == TANDEM_IMAGE_FATBIN)
      rank = sameArch ? 3 : 2;
    else if (image.format == TANDEM_IMAGE_PTX &&
             (deviceSm == 0 || sm <= deviceSm))
      rank = 1;
    if (rank > bestRank || (rank == bestRank && rank == 1 && sm > bestSm)) {
      best = &image;
      bestRank = rank;
      bestSm = sm;
    }
  }
  return best;
}
