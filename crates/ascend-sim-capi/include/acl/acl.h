/*
 * ascend-twin: the ACL umbrella header of the drop-in libascendcl.so.
 * Written for this project; names, types and values follow the public ACL API.
 */
#ifndef ASCEND_TWIN_ACL_H
#define ASCEND_TWIN_ACL_H

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialise ACL; configPath may be NULL. A second call returns ACL_ERROR_REPEAT_INITIALIZE. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/* Finalise ACL; a second call returns ACL_ERROR_REPEAT_FINALIZE. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* The calling thread's recent error messages, newest first, or NULL; reading clears them. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* CANN package versions: the simulator reports one version string for every package. */
ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
/* The package's version as a number: major * 10000000 + minor * 100000 + patch * 1000. */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

/* The calling thread's last runtime error code: Get clears it, Peek keeps it. */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);

#ifdef __cplusplus
}
#endif

#endif /* ASCEND_TWIN_ACL_H */
