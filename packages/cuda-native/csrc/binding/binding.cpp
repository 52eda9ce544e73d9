#include "binding/binding.h"
#include "binding/storage.h"

#include <atomic>
#include <vector>

namespace fhelium::binding {

namespace {
std::vector<Registration>& registry() {
  static std::vector<Registration> r;
  return r;
}
std::atomic<int64_t> g_pending_external{0};

// Per-environment state: the error factory registered from TypeScript.
struct InstanceData {
  napi_ref error_factory = nullptr;
};

InstanceData* instance(napi_env env) {
  void* data = nullptr;
  napi_get_instance_data(env, &data);
  return static_cast<InstanceData*>(data);
}
}  // namespace

Registrar::Registrar(const char* name, napi_callback callback) { registry().push_back({name, callback}); }

const Registration* registrations(size_t* count) {
  *count = registry().size();
  return registry().data();
}

Args::Args(napi_env env, napi_callback_info info) : env_(env) {
  if (napi_get_cb_info(env, info, &argc_, argv_, nullptr, nullptr) != napi_ok) {
    fail(ErrorKind::Internal, "napi_get_cb_info failed");
  }
  if (argc_ > kMaxArgs) argc_ = kMaxArgs;
}

napi_value Args::at(size_t i) const {
  if (i >= argc_) bad_arg(i, "an argument");
  return argv_[i];
}

bool Args::is_nullish(size_t i) const {
  if (i >= argc_) return true;
  napi_valuetype t;
  napi_typeof(env_, argv_[i], &t);
  return t == napi_undefined || t == napi_null;
}

void Args::bad_arg(size_t i, const char* expected) const {
  fail(ErrorKind::Argument, "native argument " + std::to_string(i) + ": expected " + expected);
}

int32_t Args::i32(size_t i) const {
  int32_t v = 0;
  if (napi_get_value_int32(env_, at(i), &v) != napi_ok) bad_arg(i, "a number");
  return v;
}

int64_t Args::i64(size_t i) const {
  int64_t v = 0;
  if (napi_get_value_int64(env_, at(i), &v) != napi_ok) bad_arg(i, "a number");
  return v;
}

double Args::f64(size_t i) const {
  double v = 0;
  if (napi_get_value_double(env_, at(i), &v) != napi_ok) bad_arg(i, "a number");
  return v;
}

bool Args::boolean(size_t i) const {
  bool v = false;
  if (napi_get_value_bool(env_, at(i), &v) != napi_ok) bad_arg(i, "a boolean");
  return v;
}

uint64_t Args::u64(size_t i) const {
  uint64_t v = 0;
  bool lossless = false;
  if (napi_get_value_bigint_uint64(env_, at(i), &v, &lossless) != napi_ok || !lossless) {
    bad_arg(i, "a non-negative BigInt below 2^64");
  }
  return v;
}

void* Args::external_raw(size_t i, const char* what) const {
  void* p = nullptr;
  if (napi_get_value_external(env_, at(i), &p) != napi_ok) bad_arg(i, what);
  return p;
}

napi_value undefined(napi_env env) {
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

napi_value boolean(napi_env env, bool b) {
  napi_value v;
  napi_get_boolean(env, b, &v);
  return v;
}

napi_value number(napi_env env, double d) {
  napi_value v;
  napi_create_double(env, d, &v);
  return v;
}

napi_value bigint(napi_env env, uint64_t u) {
  napi_value v;
  napi_create_bigint_uint64(env, u, &v);
  return v;
}

napi_value string(napi_env env, const std::string& s) {
  napi_value v;
  napi_create_string_utf8(env, s.data(), s.size(), &v);
  return v;
}

napi_value object(napi_env env) {
  napi_value v;
  napi_create_object(env, &v);
  return v;
}

void set(napi_env env, napi_value obj, const char* key, napi_value v) { napi_set_named_property(env, obj, key, v); }

void queue_external_memory_delta(int64_t delta) { g_pending_external.fetch_add(delta, std::memory_order_relaxed); }

void adjust_external_memory(napi_env env, int64_t delta) {
  const int64_t total = delta + g_pending_external.exchange(0, std::memory_order_relaxed);
  if (total == 0) return;
  int64_t result = 0;
  napi_adjust_external_memory(env, total, &result);
}

void throw_js(napi_env env, const Error& e) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  InstanceData* data = instance(env);
  napi_value factory = nullptr;
  if (data != nullptr && data->error_factory != nullptr) napi_get_reference_value(env, data->error_factory, &factory);
  if (factory != nullptr) {
    napi_value argv[4] = {string(env, error_kind_name(e.kind())), string(env, e.what()), number(env, e.cuda_code()),
                          string(env, e.cuda_name())};
    napi_value global = nullptr;
    napi_get_global(env, &global);
    napi_value error = nullptr;
    if (napi_call_function(env, global, factory, 4, argv, &error) == napi_ok && error != nullptr) {
      napi_throw(env, error);
      return;
    }
    napi_is_exception_pending(env, &pending);
    if (pending) return;
  }
  napi_throw_error(env, error_kind_name(e.kind()), e.what());
}

void cuda_not_built() {
  fail(ErrorKind::CudaUnavailable,
       "this build of @fhelium/cuda-native has no CUDA backend (it was built with FHELIUM_BACKENDS=cpu or without "
       "nvcc); rebuild it on a machine with the CUDA toolkit: npm run build -w @fhelium/cuda-native");
}

namespace {
napi_value set_error_factory(Args& a) {
  InstanceData* data = instance(a.env());
  if (data->error_factory != nullptr) napi_delete_reference(a.env(), data->error_factory);
  napi_create_reference(a.env(), a.at(0), 1, &data->error_factory);
  return nullptr;
}
FHELIUM_BINDING("setErrorFactory", set_error_factory)

napi_value noop(Args&) { return nullptr; }
FHELIUM_BINDING("noop", noop)
}  // namespace

}  // namespace fhelium::binding

NAPI_MODULE_INIT() {
  using namespace fhelium::binding;
  auto* data = new InstanceData();
  napi_set_instance_data(
      env, data,
      [](napi_env fenv, void* d, void*) {
        auto* inst = static_cast<InstanceData*>(d);
        if (inst->error_factory != nullptr) napi_delete_reference(fenv, inst->error_factory);
        delete inst;
      },
      nullptr);
  // Storages are not napi externals (binding/storage.h): free what this environment still holds
  // when it is torn down (a worker exiting with undisposed tensors).
  napi_add_env_cleanup_hook(
      env, [](void* arg) { release_storages_of(static_cast<napi_env>(arg)); }, env);
  size_t count = 0;
  const Registration* regs = registrations(&count);
  for (size_t i = 0; i < count; ++i) {
    napi_value fn = nullptr;
    if (napi_create_function(env, regs[i].name, NAPI_AUTO_LENGTH, regs[i].callback, nullptr, &fn) != napi_ok) {
      return nullptr;
    }
    napi_set_named_property(env, exports, regs[i].name, fn);
  }
  return exports;
}
