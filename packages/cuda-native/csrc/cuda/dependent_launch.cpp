#include "cuda/dependent_launch.h"

#include <cstdlib>
#include <cstring>

namespace fhelium::cuda {

bool dependent_launch_enabled() {
  // Read once: a launch must not pay for getenv, and a process keeps one launch mode.
  static const bool enabled = [] {
    const char* value = std::getenv("FHELIUM_DEPENDENT_LAUNCH");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

}  // namespace fhelium::cuda
