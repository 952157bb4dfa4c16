# Fails the build when an object compiled for a wider instruction set than the baseline carries a
# load-time initializer (.init_array / .ctors): such code runs when the library loads, on any CPU,
# before ops/dispatch.cpp has chosen the kernel build, and dies with SIGILL on a CPU without the set.
#   cmake -DOBJECTS="a.o|b.o" [-DREADELF=readelf] -P check_no_initializers.cmake
# Without readelf, the objects' printable strings are searched for the section names instead (the
# section-name table holds them as plain strings), so the check never silently goes away.
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
foreach(obj IN LISTS OBJECTS)
  if(READELF)
    execute_process(COMMAND ${READELF} -S -W ${obj} OUTPUT_VARIABLE sections RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "check_no_initializers: ${READELF} failed on ${obj}")
    endif()
  else()
    if(NOT EXISTS "${obj}")
      message(FATAL_ERROR "check_no_initializers: ${obj} does not exist")
    endif()
    file(STRINGS "${obj}" sections REGEX "\\.init_array|\\.ctors")
  endif()
  if(sections MATCHES "\\.init_array|\\.ctors")
    message(FATAL_ERROR "${obj} has a load-time initializer (a global with a non-constant initializer?): "
                        "it would run AVX-512 code at library load on any CPU. Make the global constexpr "
                        "or a function-local static.")
  endif()
endforeach()
