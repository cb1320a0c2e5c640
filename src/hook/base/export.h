/* What leaves the preload library: a function marked EXPORT is visible to the dynamic linker (the build
 * hides everything else, -fvisibility=hidden), and src/hook/base/exports.map lets through only the
 * interposed symbols it names (tests/integration/test_exports.sh checks the two agree). */
#ifndef LLMGATE_HOOK_BASE_EXPORT_H
#define LLMGATE_HOOK_BASE_EXPORT_H

#define EXPORT __attribute__((visibility("default")))

#endif
