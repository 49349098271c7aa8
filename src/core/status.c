/* status.c: messages for the status codes listed once in xpose.h, and the library version. */
#include "xpose.h"

const char *xpose_strerror(int status)
{
    switch (status) {
#define XP_STATUS_CASE_(name, value, msg)                                                                              \
    case value: return msg;
        XPOSE_STATUS_LIST(XP_STATUS_CASE_)
#undef XP_STATUS_CASE_
    default: return "unknown xpose status";
    }
}

const char *xpose_version(void) { return XPOSE_VERSION_STRING; }
