// Which GPUs a build's CUDA code runs on, from the architecture list it was compiled for (CMake's
// CUDA_ARCHITECTURES, passed in as FHELIUM_CUDA_ARCHITECTURES with ',' between entries).
//
// Why: a device the build has no code for is still reported by cudaGetDeviceCount, memory and
// copies work on it, and only the first kernel fails (cudaErrorNoKernelImageForDevice), deep inside
// an engine call. Checking the compute capability up front lets CUDA availability say so plainly.
//
// Host-only and pure (no CUDA headers), so the CPU kernel tests cover every rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fhelium {

// One entry of the list: "90" (SASS and PTX), "90-real" (SASS only), "90-virtual" (PTX only),
// each with an optional "a" (arch-specific: that exact compute capability) or "f" (family-specific:
// the same major version) suffix on the number, as CMake spells them ("90a-real", "100f").
struct CudaArchitecture {
  int major = 0;
  int minor = 0;
  bool real = false;     // SASS for this architecture
  bool virt = false;     // PTX, JIT-compiled by the driver for the device
  char variant = '\0';   // '\0', 'a' or 'f'
};

// Parses one entry; false for anything else (CMake's keywords "all", "all-major" and "native"
// included, whose architectures are not known from the list alone).
inline bool parse_cuda_architecture(std::string_view entry, CudaArchitecture& out) {
  CudaArchitecture a;
  a.real = a.virt = true;
  constexpr std::string_view kReal = "-real";
  constexpr std::string_view kVirtual = "-virtual";
  if (entry.size() > kReal.size() && entry.substr(entry.size() - kReal.size()) == kReal) {
    a.virt = false;
    entry.remove_suffix(kReal.size());
  } else if (entry.size() > kVirtual.size() && entry.substr(entry.size() - kVirtual.size()) == kVirtual) {
    a.real = false;
    entry.remove_suffix(kVirtual.size());
  }
  if (!entry.empty() && (entry.back() == 'a' || entry.back() == 'f')) {
    a.variant = entry.back();
    entry.remove_suffix(1);
  }
  if (entry.size() < 2 || entry.size() > 3) return false;
  int number = 0;
  for (const char c : entry) {
    if (c < '0' || c > '9') return false;
    number = number * 10 + (c - '0');
  }
  if (entry.front() == '0') return false;
  a.major = number / 10;
  a.minor = number % 10;
  out = a;
  return true;
}

// Whether code for `a` runs on a device of compute capability major.minor. SASS runs on the same
// major version from its minor up; PTX is JIT-compiled for any later device; an "a" entry runs on
// exactly its compute capability and an "f" entry on its major version from its minor up, SASS or
// PTX alike (NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities" and "Binary and PTX
// compatibility").
inline bool cuda_architecture_runs_on(const CudaArchitecture& a, int major, int minor) {
  const bool same_family = major == a.major && minor >= a.minor;
  if (a.variant == 'a') return major == a.major && minor == a.minor;
  if (a.variant == 'f') return same_family;
  const bool later = major > a.major || same_family;
  return (a.real && same_family) || (a.virt && later);
}

// The outcome for one device: `known` is false when some entry could not be parsed (then nothing
// is refused: the list may well cover the device).
struct CudaArchitectureSupport {
  bool known = true;
  bool supported = false;
};

// The entries of `list`, separated by ',' or ';' (empty entries dropped).
inline std::vector<std::string_view> split_cuda_architectures(std::string_view list) {
  std::vector<std::string_view> entries;
  while (!list.empty()) {
    const std::size_t end = list.find_first_of(",;");
    if (end != 0) entries.push_back(list.substr(0, end));
    list = end == std::string_view::npos ? std::string_view{} : list.substr(end + 1);
  }
  return entries;
}

// `list` as split_cuda_architectures reads it; an empty list is unknown.
inline CudaArchitectureSupport cuda_architectures_support(std::string_view list, int major, int minor) {
  CudaArchitectureSupport result;
  const std::vector<std::string_view> entries = split_cuda_architectures(list);
  if (entries.empty()) result.known = false;
  for (const std::string_view entry : entries) {
    CudaArchitecture a;
    if (!parse_cuda_architecture(entry, a)) {
      result.known = false;
    } else if (cuda_architecture_runs_on(a, major, minor)) {
      result.supported = true;
    }
  }
  return result;
}

// What the list runs on, in words: "compute capability 9.0 and newer", or several clauses joined
// by " or " ("9.0 to 9.x", "exactly 9.0"); "" when some entry cannot be parsed.
inline std::string describe_cuda_architectures(std::string_view list) {
  std::vector<std::string> clauses;
  for (const std::string_view entry : split_cuda_architectures(list)) {
    CudaArchitecture a;
    if (!parse_cuda_architecture(entry, a)) return "";
    const std::string cc = std::to_string(a.major) + "." + std::to_string(a.minor);
    std::string clause;
    if (a.variant == 'a') {
      clause = "exactly " + cc;
    } else if (a.variant == 'f' || !a.virt) {
      clause = cc + " to " + std::to_string(a.major) + ".x";
    } else {
      clause = cc + " and newer";
    }
    bool seen = false;
    for (const auto& c : clauses) seen = seen || c == clause;
    if (!seen) clauses.push_back(clause);
  }
  if (clauses.empty()) return "";
  std::string text = "compute capability " + clauses[0];
  for (std::size_t i = 1; i < clauses.size(); ++i) text += " or " + clauses[i];
  return text;
}

}  // namespace fhelium
