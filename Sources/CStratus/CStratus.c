// CStratus declares types only; SwiftPM needs one source file to build the target.
#include "CStratus.h"
