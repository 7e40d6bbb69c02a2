# Fails when product code uses Qt 6.4's continuation machinery (QFuture::then(), unwrap(),
# QtFuture::whenAll()/whenAny()): a continuation attached while another thread finishes the
# future runs twice and crashes (docs/QT-PITFALLS.md "Continuations"). Use continueWith() /
# continueAfterAll() (backends/domain/FutureChain.h) or whenReady() (WhenReady.h).
# Run: cmake -DSOURCE_DIR=<repo> -P no_qt_continuations.cmake
file(GLOB_RECURSE sources
  "${SOURCE_DIR}/app/*.cpp" "${SOURCE_DIR}/app/*.h"
  "${SOURCE_DIR}/backends/*.cpp" "${SOURCE_DIR}/backends/*.h"
  "${SOURCE_DIR}/models/*.cpp" "${SOURCE_DIR}/models/*.h"
  "${SOURCE_DIR}/views/*.cpp" "${SOURCE_DIR}/views/*.h")
set(found "")
foreach(f IN LISTS sources)
  file(STRINGS "${f}" lines ENCODING UTF-8 REGEX "\\.then\\(|\\.unwrap\\(\\)|QtFuture::whenA(ll|ny)|\\.onCanceled\\(|\\.onFailed\\(")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" stripped)
    if(NOT stripped MATCHES "^//")
      file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
      string(APPEND found "\n  ${rel}: ${stripped}")
    endif()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "Qt continuations in product code (use continueWith()/continueAfterAll(), FutureChain.h):${found}")
endif()
message(STATUS "no Qt continuations in ${SOURCE_DIR}")
