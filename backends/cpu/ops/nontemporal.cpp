#include "nontemporal.h"

#include <immintrin.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace infini::cpu::ops::INFINI_CPU_ISA {

namespace {

size_t lastLevelCacheBytes() {
    for (int i = 0; i < 8; ++i) {
        std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        int level = 0;
        char unit = 0;
        unsigned long long size = 0;
        FILE *f = std::fopen((dir + "level").c_str(), "r");
        if (f == nullptr) break;
        bool ok = std::fscanf(f, "%d", &level) == 1;
        std::fclose(f);
        if (!ok || level != 3) continue;
        f = std::fopen((dir + "size").c_str(), "r");
        if (f == nullptr) break;
        int got = std::fscanf(f, "%llu%c", &size, &unit);
        std::fclose(f);
        if (got >= 1 && size > 0) return size * (unit == 'K' ? 1024ULL : unit == 'M' ? 1024ULL * 1024 : 1ULL);
    }
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return v > 0 ? static_cast<size_t>(v) : size_t(32) << 20;
}

}  // namespace

size_t streamingStoreBytes() {
    static const size_t bytes = lastLevelCacheBytes() / 4;
    return bytes;
}

void streamCopy(void *dst, const void *src, size_t n) {
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    size_t head = std::min(n, (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31);
    std::memcpy(d, s, head);
    size_t i = head;
    for (; i + 128 <= n; i += 128) {
        __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
        __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 32));
        __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 64));
        __m256i x3 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i), x0);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 32), x1);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 64), x2);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 96), x3);
    }
    for (; i + 32 <= n; i += 32) {
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)));
    }
    std::memcpy(d + i, s + i, n - i);
    _mm_sfence();
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
