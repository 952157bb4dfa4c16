// isa.h: the two builds of the kernels. Every source of ops/ is compiled twice (backends/CMakeLists.txt):
// for x86-64-v3 (AVX2, FMA, F16C) with INFINI_CPU_ISA=avx2, and for AVX-512 with BF16 and AMX with
// INFINI_CPU_ISA=avx512; dispatch.cpp picks one at run time. Each build lives in its own namespace,
// infini::cpu::ops::INFINI_CPU_ISA, so that no inline function compiled for one instruction set can be
// linked into the other: every header of ops/ includes this one and opens that namespace.
#pragma once

#ifndef INFINI_CPU_ISA
#error "ops/ sources are built with INFINI_CPU_ISA=avx2 or avx512 (see backends/CMakeLists.txt)"
#endif
