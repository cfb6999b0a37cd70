# Cross-compiling bitbench for 64-bit Arm Linux from an x86-64 Debian host (README "Building for
# Arm"):
#   cmake -S . -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Debian's gcc-aarch64-linux-gnu with multiarch (scripts/bootstrap: dpkg --add-architecture arm64
# and the :arm64 -dev packages): the arm64 headers and libraries live beside the host's, in
# /usr/include/aarch64-linux-gnu and /usr/lib/aarch64-linux-gnu, which the cross compiler searches
# by itself; so the sysroot is / and only pkg-config has to be pointed at the arm64 .pc files.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config reads the arm64 .pc files only (never the host's, whose -L paths hold x86 libraries).
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Tests run under qemu-user (Debian's qemu-user-static).  Which CPU it emulates is chosen per run
# with QEMU_CPU (qemu's own variable: max, cortex-a72, ...); the arm64 dynamic loader and
# libraries are found at their multiarch paths, so no QEMU_LD_PREFIX is needed.
find_program(BB_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(BB_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${BB_QEMU_AARCH64})
endif()
