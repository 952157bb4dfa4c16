// loader.cpp: backend discovery. Searches each folder of INFINI_BACKEND_PATH (a ':'-separated list
// of folders or library files), then the folder holding libinfinicore.so, for files named
// libinfini_backend_<name>.so. The first library that provides a device type wins; a library that
// fails to load is recorded with its path and the reason, and the others keep working.
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "../common/error.h"

namespace infini::core {
namespace {

constexpr const char *kPrefix = "libinfini_backend_";
constexpr const char *kSuffix = ".so";

struct LoaderState {
    std::vector<BackendLibrary> libraries;
    std::array<int, INFINI_DEVICE_TYPE_COUNT> owner{};  // index into libraries + 1, 0 = none
};

LoaderState &state() {
    static LoaderState *s = new LoaderState();  // never destroyed: backends may run until exit
    return *s;
}

bool isBackendFileName(const std::string &name) {
    size_t p = std::strlen(kPrefix), s = std::strlen(kSuffix);
    return name.size() > p + s && name.compare(0, p, kPrefix) == 0 && name.compare(name.size() - s, s, kSuffix) == 0;
}

std::string baseName(const std::string &path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ownDirectory() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&ensureLoaded), &info) == 0 || info.dli_fname == nullptr) return ".";
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Appends the backend files of a folder (sorted, for a stable order) or the file itself.
void collect(const std::string &entry, std::vector<std::string> *out) {
    struct stat st;
    if (stat(entry.c_str(), &st) != 0) return;
    if (S_ISREG(st.st_mode)) {
        out->push_back(entry);
        return;
    }
    DIR *dir = opendir(entry.c_str());
    if (dir == nullptr) return;
    std::vector<std::string> found;
    while (dirent *e = readdir(dir)) {
        if (isBackendFileName(e->d_name)) found.push_back(entry + "/" + e->d_name);
    }
    closedir(dir);
    std::sort(found.begin(), found.end());
    out->insert(out->end(), found.begin(), found.end());
}

std::string missingFunction(const infiniBackend_t *t) {
#define INFINI_REQUIRE(field) \
    if (t->field == nullptr) return #field
    INFINI_REQUIRE(last_error_message);
    INFINI_REQUIRE(init);
    INFINI_REQUIRE(get_device_count);
    INFINI_REQUIRE(set_device);
    INFINI_REQUIRE(device_synchronize);
    INFINI_REQUIRE(get_mem_info);
    INFINI_REQUIRE(get_device_name);
    INFINI_REQUIRE(stream_create);
    INFINI_REQUIRE(stream_destroy);
    INFINI_REQUIRE(stream_synchronize);
    INFINI_REQUIRE(stream_query);
    INFINI_REQUIRE(stream_wait_event);
    INFINI_REQUIRE(launch_host_func);
    INFINI_REQUIRE(event_create);
    INFINI_REQUIRE(event_record);
    INFINI_REQUIRE(event_query);
    INFINI_REQUIRE(event_synchronize);
    INFINI_REQUIRE(event_destroy);
    INFINI_REQUIRE(event_elapsed_time);
    INFINI_REQUIRE(malloc_device);
    INFINI_REQUIRE(malloc_host);
    INFINI_REQUIRE(free_device);
    INFINI_REQUIRE(free_host);
    INFINI_REQUIRE(memcpy_sync);
    INFINI_REQUIRE(memcpy_async);
    INFINI_REQUIRE(malloc_async);
    INFINI_REQUIRE(free_async);
    INFINI_REQUIRE(memset_sync);
    INFINI_REQUIRE(memset_async);
    INFINI_REQUIRE(pointer_get_attributes);
    INFINI_REQUIRE(create_handle);
    INFINI_REQUIRE(destroy_handle);
#undef INFINI_REQUIRE
    return "";
}

void loadOne(const std::string &path, LoaderState &s) {
    BackendLibrary lib;
    lib.path = path;
    lib.name = baseName(path);
    auto reject = [&](std::string why) {
        lib.message = std::move(why);
        s.libraries.push_back(lib);
    };
    void *dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (dl == nullptr) {
        const char *err = dlerror();
        return reject(std::string("dlopen failed: ") + (err ? err : "unknown error"));
    }
    auto get = reinterpret_cast<infiniBackendGetFn>(dlsym(dl, INFINI_BACKEND_ENTRY_SYMBOL));
    if (get == nullptr) {
        dlclose(dl);
        return reject(std::string("no symbol " INFINI_BACKEND_ENTRY_SYMBOL " (not an infini backend)"));
    }
    const infiniBackend_t *t = get();
    if (t == nullptr) return reject(INFINI_BACKEND_ENTRY_SYMBOL " returned NULL");
    if (t->abi_version != INFINI_BACKEND_ABI_VERSION || t->struct_size < INFINI_BACKEND_BASE_SIZE) {
        return reject("backend ABI version " + std::to_string(t->abi_version) + " (struct size " +
                      std::to_string(t->struct_size) + "), the core needs version " +
                      std::to_string(INFINI_BACKEND_ABI_VERSION));
    }
    if (t->name != nullptr) lib.name = t->name;
    if (t->device_type < 0 || t->device_type >= INFINI_DEVICE_TYPE_COUNT) {
        return reject("unknown device type " + std::to_string(static_cast<int>(t->device_type)));
    }
    lib.device_type = t->device_type;
    std::string missing = missingFunction(t);
    if (!missing.empty()) return reject("the backend does not implement " + missing);
    if (int owner = s.owner[t->device_type]) {
        return reject(std::string("skipped: device type ") + infiniGetDeviceTypeName(t->device_type) +
                      " is already provided by " + s.libraries[owner - 1].path);
    }
    if (t->init() != INFINI_STATUS_SUCCESS) return reject(std::string("init failed: ") + t->last_error_message());
    int count = 0;
    if (t->get_device_count(&count) != INFINI_STATUS_SUCCESS) {
        return reject(std::string("device count failed: ") + t->last_error_message());
    }
    lib.device_count = count;
    lib.loaded = true;
    lib.table = t;
    s.libraries.push_back(lib);
    s.owner[t->device_type] = static_cast<int>(s.libraries.size());
}

}  // namespace

void ensureLoaded() {
    static std::once_flag once;
    std::call_once(once, [] {
        LoaderState &s = state();
        std::vector<std::string> files;
        if (const char *env = std::getenv("INFINI_BACKEND_PATH")) {
            std::string list = env;
            size_t start = 0;
            while (start <= list.size()) {
                size_t end = list.find(':', start);
                if (end == std::string::npos) end = list.size();
                if (end > start) collect(list.substr(start, end - start), &files);
                start = end + 1;
            }
        }
        collect(ownDirectory(), &files);
        std::vector<std::string> seen;
        for (const std::string &f : files) {
            char *real = realpath(f.c_str(), nullptr);
            std::string key = real ? real : f;
            std::free(real);
            if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
            seen.push_back(key);
            loadOne(f, s);
        }
    });
}

const std::vector<BackendLibrary> &libraries() {
    ensureLoaded();
    return state().libraries;
}

const infiniBackend_t *backendFor(int device_type) {
    ensureLoaded();
    if (device_type < 0 || device_type >= INFINI_DEVICE_TYPE_COUNT) return nullptr;
    int owner = state().owner[device_type];
    return owner ? state().libraries[owner - 1].table : nullptr;
}

int deviceCount(int device_type) {
    ensureLoaded();
    if (device_type < 0 || device_type >= INFINI_DEVICE_TYPE_COUNT) return 0;
    int owner = state().owner[device_type];
    return owner ? state().libraries[owner - 1].device_count : 0;
}

}  // namespace infini::core
