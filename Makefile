# Makefile: the README's two commands (make bench, make test) over CMake, plus the CPU-only and sanitizer builds.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build bench test test-cpu sanitize clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	./$(BUILD)/xpose bench $(ARGS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The CPU-only build (no CUDA backend, however the machine is set up): about 20 s to build on 2 cores.
test-cpu:
	cmake -S . -B $(BUILD)-cpu -DCMAKE_BUILD_TYPE=Release -DXPOSE_CUDA=OFF
	cmake --build $(BUILD)-cpu -j $(JOBS)
	ctest --test-dir $(BUILD)-cpu --output-on-failure -j $(JOBS)

# CPU side under AddressSanitizer + UndefinedBehaviorSanitizer (CUDA off: the sanitizers do not cover it).
sanitize:
	cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=Debug -DXPOSE_SANITIZE=ON -DXPOSE_CUDA=OFF
	cmake --build $(BUILD)-sanitize -j $(JOBS)
	ctest --test-dir $(BUILD)-sanitize --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(BUILD)-cpu $(BUILD)-sanitize
