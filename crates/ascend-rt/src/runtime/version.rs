//! Version queries: `aclrtGetVersion`, `aclsysGetVersionStr`, `aclsysGetVersionNum`,
//! `aclsysGetCANNVersion`.
//!
//! Behaviour from the vendor's runtime: `src/acl/aclrt_impl/acl_rt_impl_base.cpp`
//! (`aclrtGetVersionImpl`), `src/acl/aclrt_impl/acl.cpp` (`aclsysGetVersionStrImpl`,
//! `aclsysGetCANNVersionImpl`, the package-name table); the ACL version is the public
//! header's (`ACL_MAJOR_VERSION` … in `include/external/acl/acl_rt.h`;
//! docs/validation/devices-contexts.md, Versions).

use super::Runtime;
use crate::error::{fail, AclResult, ErrorCode};

/// The ACL interface version this crate implements: 1.17.0.
pub const ACL_VERSION: (i32, i32, i32) = (1, 17, 0);

/// The package version string the simulator reports for every CANN package: a CANN-style
/// number that names the simulator.
pub const SIM_PACKAGE_VERSION: &str = "8.5.0-ascend-twin-simulator";

/// Package names `aclsysGetVersionStr` knows (the vendor's names; `-` and `_` are
/// interchangeable).
const PACKAGES: [&str; 6] = [
    "runtime",
    "bisheng-compiler",
    "hccl",
    "oam-tools",
    "ops-legacy",
    "driver",
];

/// Most package names `aclsysGetCANNVersion` accepts (`ACL_PKG_NAME_CANN` 0 …
/// `ACL_PKG_NAME_DRIVER` 7).
const PKG_NAME_MAX: u32 = 7;

/// One package's version, as `aclsysGetCANNVersion` fills an `aclCANNPackageVersion`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CannPackageVersion {
    /// The whole version string.
    pub version: String,
    /// Major part.
    pub major: String,
    /// Minor part.
    pub minor: String,
    /// Release part.
    pub release: String,
    /// Patch part.
    pub patch: String,
}

impl Runtime {
    /// `aclrtGetVersion(&major, &minor, &patch)`: 1.17.0. Each NULL in turn is 100000 (EH0008).
    pub fn get_version(
        &self,
        major: Option<&mut i32>,
        minor: Option<&mut i32>,
        patch: Option<&mut i32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtGetVersion";
            let major = major.ok_or_else(|| fail::acl_null(api, "majorVersion"))?;
            let minor = minor.ok_or_else(|| fail::acl_null(api, "minorVersion"))?;
            let patch = patch.ok_or_else(|| fail::acl_null(api, "patchVersion"))?;
            (*major, *minor, *patch) = ACL_VERSION;
            Ok(())
        })
    }

    /// `aclsysGetVersionStr(pkgName, versionStr)`: [`SIM_PACKAGE_VERSION`] for a known
    /// package. Order: versionStr NULL, then pkgName NULL (100000, EH0008); an unknown package
    /// (100003 `ACL_ERROR_INVALID_FILE`).
    pub fn sys_get_version_str(
        &self,
        pkg_name: Option<&str>,
        version: Option<&mut String>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclsysGetVersionStr";
            let out = version.ok_or_else(|| fail::acl_null(api, "versionStr"))?;
            let name = pkg_name.ok_or_else(|| fail::acl_null(api, "pkgName"))?;
            *out = package_version(api, name)?.to_string();
            Ok(())
        })
    }

    /// `aclsysGetVersionNum(pkgName, &versionNum)`: the package version as one number, major ×
    /// 10,000,000 + minor × 100,000 + patch × 1,000 (8.5.0 is 80,500,000). Order: versionNum
    /// NULL, then pkgName NULL (100000, EH0008); an unknown package (100003), as for
    /// [`Runtime::sys_get_version_str`]. The vendor lowers the number by 300, 200 or 100 for an
    /// alpha, beta or rc suffix; the simulator's tag after `-` names the simulator, not a
    /// pre-release, so its number is that of the base version.
    pub fn sys_get_version_num(
        &self,
        pkg_name: Option<&str>,
        version_num: Option<&mut i32>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclsysGetVersionNum";
            let out = version_num.ok_or_else(|| fail::acl_null(api, "versionNum"))?;
            let name = pkg_name.ok_or_else(|| fail::acl_null(api, "pkgName"))?;
            *out = version_number(package_version(api, name)?);
            Ok(())
        })
    }

    /// `aclsysGetCANNVersion(name, &version)`: [`SIM_PACKAGE_VERSION`] split into its parts.
    /// Order: version NULL (100000, EH0008); a name outside the enum (100000).
    pub fn sys_get_cann_version(
        &self,
        name: u32,
        version: Option<&mut CannPackageVersion>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclsysGetCANNVersion";
            let out = version.ok_or_else(|| fail::acl_null(api, "version"))?;
            if name > PKG_NAME_MAX {
                return Err(fail::plain(
                    ErrorCode::InvalidParam,
                    format!("{api}: package name {name} is not an aclCANNPackageName"),
                ));
            }
            let (number, _) = SIM_PACKAGE_VERSION
                .split_once('-')
                .unwrap_or((SIM_PACKAGE_VERSION, ""));
            let mut parts = number.split('.');
            *out = CannPackageVersion {
                version: SIM_PACKAGE_VERSION.to_string(),
                major: parts.next().unwrap_or_default().to_string(),
                minor: parts.next().unwrap_or_default().to_string(),
                release: parts.next().unwrap_or_default().to_string(),
                patch: String::new(),
            };
            Ok(())
        })
    }
}

/// The version string of package `name` (`-` and `_` interchangeable); 100003 for a package
/// the runtime has no version information for.
fn package_version(api: &str, name: &str) -> AclResult<&'static str> {
    let norm = name.replace('_', "-");
    if !PACKAGES.contains(&norm.as_str()) {
        return Err(fail::plain(
            ErrorCode::InvalidFile,
            format!("{api}: no version information for package {name:?}"),
        ));
    }
    Ok(SIM_PACKAGE_VERSION)
}

/// The number of a `major.minor.patch[-tag]` version string, as `aclsysGetVersionNum` gives it.
fn version_number(text: &str) -> i32 {
    let base = text.split_once('-').map_or(text, |(b, _)| b);
    let mut parts = base.split('.').map(|p| p.parse::<i32>().unwrap_or(0));
    let (major, minor, patch) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    major * 10_000_000 + minor * 100_000 + patch * 1_000
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_number_weighs_major_minor_and_patch() {
        assert_eq!(
            super::version_number("8.5.0-ascend-twin-simulator"),
            80_500_000
        );
        assert_eq!(super::version_number("7.1.3"), 70_103_000);
    }
}
