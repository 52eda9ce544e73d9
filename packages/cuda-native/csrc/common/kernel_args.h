// Argument checks of the kernel families' host entry points.
//
// Kernels validate their arguments on the host before touching any memory, so a bad call throws
// and leaves every output untouched. Failures are fhelium::Error(ErrorKind::Argument) (see
// common/error.h), which the binding turns into the JavaScript error class of that kind; a failed
// CUDA launch is Error(ErrorKind::Cuda) (cuda/launch_check.h).
#pragma once

#include <string>

#include "common/error.h"

namespace fhelium {

// Throws Error(Argument, "<where>: expected <expected>, got <given>") when !ok.
inline void require_argument(bool ok, const char* where, const std::string& expected,
                             const std::string& given) {
  if (!ok) {
    throw Error(ErrorKind::Argument, std::string(where) + ": expected " + expected + ", got " + given);
  }
}

}  // namespace fhelium
