//! A fabric on disk: which files describe it and how they are read.
//!
//! **Key design decision: one loader for every front end.** `fatnet fabric check|load`,
//! `fatnet simulate --fabric` and sweep or config files name a fabric by the same
//! [`FabricFiles`] (a topology file, optional forwarding tables, an optional CA order and a
//! [`FabricFormat`]), and [`FabricFiles::load`] is the only place that knows which reader a
//! format needs, where the side files are looked for and what a format cannot read.
//!
//! Where the side files are looked for (the conventions of the tools that write them):
//! - ib_flit_sim: the tables' switch index is `<ROUTES>.ini` (the `.fdbs.ini` beside the
//!   `.fdbs`); the CA order is `ftree.hcas` beside the `.fdbs` when present.
//! - OpenSM: the topology is `opensm-subnet.lst`, or a dump folder holding it (or whose parent
//!   holds it: one subnet, a folder of tables per routing engine); the tables are
//!   a folder's `opensm-lfts.dump` or a table file (`opensm-lfts.dump`, `ibroute`/`dump_fts`
//!   output, or `opensm.fdbs`), by default the topology folder's when it has one; the CA order
//!   is `opensm-ftree-ca-order.dump` beside the tables when present and not empty (OpenSM
//!   leaves it empty when an engine other than ftree routed).
//! - ibnetdiscover: the tables are read as for OpenSM (a folder's `opensm-lfts.dump`, or a
//!   table file: `ibroute` / `dump_fts` / `dump_lfts.sh` output, `opensm-lfts.dump`,
//!   `opensm.fdbs`) and attach by switch GUID; LIDs come from the dump's `lid` comments, a
//!   switch without one (`lid 0`: dumped before the subnet manager ran) takes its table
//!   header's. The CA order is `--ca-order` (an `.dump` file read as OpenSM's, anything else as
//!   `ftree.hcas`), else OpenSM's ftree CA order beside the tables when present and not empty.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Fabric, FabricError, LineReport, flitsim, ibdm, ibnetdiscover, opensm, read_text};

fatnet_topology::named_options! {
    /// The format of a fabric's files.
    pub enum FabricFormat("fabric format") {
        /// By the path: a folder or `opensm-subnet.lst` is opensm, `.ned` flitsim, `.topo`
        /// ibdm, anything else ibnetdiscover.
        Auto = "auto",
        /// infiniband-diags `ibnetdiscover` output (+ tables from `ibroute` / `dump_fts` /
        /// `dump_lfts.sh` output, `opensm-lfts.dump` or `opensm.fdbs`).
        Ibnetdiscover = "ibnetdiscover",
        /// ibdm `.topo` system file (structure only).
        Ibdm = "ibdm",
        /// ib_flit_sim `.ned` (+ `.fdbs`, `.fdbs.ini`, `ftree.hcas`).
        Flitsim = "flitsim",
        /// OpenSM dumps: `opensm-subnet.lst` (+ `opensm-lfts.dump`, the ftree CA order).
        Opensm = "opensm",
    }
}

/// OpenSM's subnet dump.
pub const SUBNET_LST: &str = "opensm-subnet.lst";
/// OpenSM's linear forwarding tables dump.
pub const LFTS_DUMP: &str = "opensm-lfts.dump";
/// OpenSM's forwarding tables in `opensm.fdbs` form.
pub const FDBS: &str = "opensm.fdbs";
/// OpenSM's ftree engine's CA order.
pub const FTREE_CA_ORDER: &str = "opensm-ftree-ca-order.dump";

// `named_options!` takes only doc attributes on variants, so `#[default]` cannot be derived.
#[allow(clippy::derivable_impls)]
impl Default for FabricFormat {
    fn default() -> Self {
        FabricFormat::Auto
    }
}

impl FabricFormat {
    /// The format `self` means for `path`: [`FabricFormat::Auto`] decided by the path, any
    /// other format itself.
    #[must_use]
    pub fn resolve(self, path: &Path) -> FabricFormat {
        if self != FabricFormat::Auto {
            return self;
        }
        if path.is_dir() || path.file_name().and_then(|n| n.to_str()) == Some(SUBNET_LST) {
            return FabricFormat::Opensm;
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("ned") => FabricFormat::Flitsim,
            Some("topo") => FabricFormat::Ibdm,
            _ => FabricFormat::Ibnetdiscover,
        }
    }
}

/// The files of a fabric. In TOML: `{ fabric = "is4.ned", routes = "is4.fdbs" }`; relative
/// paths are relative to the working directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricFiles {
    /// The topology file (`.ned`, `.topo`, an `ibnetdiscover` dump, `opensm-subnet.lst` or an
    /// OpenSM dump folder).
    pub fabric: PathBuf,
    /// The forwarding tables (flitsim: the `.fdbs`; opensm and ibnetdiscover: a dump folder or a
    /// table file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<PathBuf>,
    /// A CA-order file (flitsim `ftree.hcas`, OpenSM's ftree CA-order dump).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_order: Option<PathBuf>,
    /// The format of the files.
    #[serde(default, skip_serializing_if = "is_auto")]
    pub format: FabricFormat,
}

fn is_auto(format: &FabricFormat) -> bool {
    *format == FabricFormat::Auto
}

/// A fabric as read, with what was read.
#[derive(Clone, Debug)]
pub struct LoadedFabric {
    /// The fabric, with its tables and CA order when given.
    pub fabric: Fabric,
    /// The format read (never [`FabricFormat::Auto`]).
    pub format: FabricFormat,
    /// The table file read, if any.
    pub routes: Option<String>,
    /// The CA-order file read, if any.
    pub ca_order: Option<String>,
    /// Lines of no known shape, over all files read.
    pub unrecognised: usize,
}

fn read(path: &Path) -> Result<(String, String), FabricError> {
    let name = path.display().to_string();
    let text = read_text(path)?;
    Ok((name, text))
}

impl FabricFiles {
    /// The files of a fabric of unknown format with no side files.
    pub fn new(fabric: impl Into<PathBuf>) -> FabricFiles {
        FabricFiles {
            fabric: fabric.into(),
            routes: None,
            ca_order: None,
            format: FabricFormat::Auto,
        }
    }

    /// Reads the fabric, its tables and its CA order (see the module documentation
    /// for where side files are looked for).
    ///
    /// # Errors
    ///
    /// The errors of the readers; [`FabricError::Unsupported`] for tables of a format whose
    /// tables are not read, or a folder of a format other than opensm;
    /// [`FabricError::NoRecords`] for a file with no node (an OpenSM subnet file with no port
    /// records, an empty or foreign file of any format).
    pub fn load(&self) -> Result<LoadedFabric, FabricError> {
        let format = self.format.resolve(&self.fabric);
        if format == FabricFormat::Opensm {
            return self.load_opensm();
        }
        let name = self.fabric.display().to_string();
        if self.fabric.is_dir() {
            return Err(FabricError::Unsupported {
                file: name,
                what: "a folder",
                format: format.name(),
            });
        }
        let (topo_name, topo) = read(&self.fabric)?;
        let mut reports: Vec<LineReport> = Vec::new();
        let (mut fabric, r) = match format {
            FabricFormat::Flitsim => flitsim::parse_ned(&topo, &topo_name)?,
            FabricFormat::Ibdm => ibdm::parse(&topo, &topo_name, &ibdm::IbdmOptions::default())?,
            _ => ibnetdiscover::parse(&topo, &topo_name)?,
        };
        // One behaviour for every reader: a file with no node is not a fabric (an empty file,
        // or a file of another kind whose lines no reader recognises).
        if fabric.node_count() == 0 {
            return Err(FabricError::NoRecords {
                file: topo_name,
                unrecognised: r.unrecognised_count(),
                expected: match format {
                    FabricFormat::Flitsim => "ib_flit_sim .ned file",
                    FabricFormat::Ibdm => "ibdm .topo file",
                    _ => "ibnetdiscover output",
                },
            });
        }
        reports.push(r);
        let mut ca_order_file = self.ca_order.clone();
        if let Some(routes) = &self.routes
            && format == FabricFormat::Ibnetdiscover
        {
            let (tables, r, tname, folder) = read_table_file(routes)?;
            reports.push(r);
            fabric = opensm::attach_tables(fabric, &tables, &tname)?;
            if ca_order_file.is_none() {
                ca_order_file = ftree_ca_order_in(&folder)?;
            }
            let apply = match &ca_order_file {
                Some(p) if p.extension().and_then(|e| e.to_str()) != Some("dump") => {
                    flitsim::apply_ca_order
                }
                _ => opensm::apply_ca_order,
            };
            return finish(fabric, format, Some(tname), ca_order_file, reports, apply);
        }
        if let Some(routes) = &self.routes {
            if format != FabricFormat::Flitsim {
                return Err(FabricError::Unsupported {
                    file: routes.display().to_string(),
                    what: "forwarding tables",
                    format: format.name(),
                });
            }
            let (fdbs_name, fdbs) = read(routes)?;
            let mut ini_path = routes.clone().into_os_string();
            ini_path.push(".ini");
            let (ini_name, ini) = read(Path::new(&ini_path))?;
            let (tables, r1) = flitsim::parse_fdbs(&fdbs, &fdbs_name)?;
            let (index, r2) = flitsim::parse_fdbs_ini(&ini, &ini_name)?;
            reports.extend([r1, r2]);
            fabric = flitsim::attach_tables(fabric, &tables, &index, &ini_name)?;
            if ca_order_file.is_none() {
                let beside = routes.with_file_name("ftree.hcas");
                if beside.is_file() {
                    ca_order_file = Some(beside);
                }
            }
        }
        let routes = self.routes.as_ref().map(|p| p.display().to_string());
        finish(
            fabric,
            format,
            routes,
            ca_order_file,
            reports,
            flitsim::apply_ca_order,
        )
    }

    fn load_opensm(&self) -> Result<LoadedFabric, FabricError> {
        let topo_dir = self.fabric.is_dir();
        let lst = if topo_dir {
            // An engine's folder of tables beside the one subnet dump of its fabric.
            let own = self.fabric.join(SUBNET_LST);
            match self.fabric.parent().map(|p| p.join(SUBNET_LST)) {
                Some(parent) if !own.exists() && parent.is_file() => parent,
                _ => own,
            }
        } else {
            self.fabric.clone()
        };
        let (name, text) = read(&lst)?;
        let (mut fabric, r) = opensm::parse_subnet_lst(&text, &name)?;
        if fabric.node_count() == 0 {
            return Err(FabricError::NoRecords {
                file: name,
                unrecognised: r.unrecognised_count(),
                expected: SUBNET_LST,
            });
        }
        let mut reports = vec![r];
        let routes = self.routes.clone().or_else(|| {
            (topo_dir && self.fabric.join(LFTS_DUMP).is_file()).then(|| self.fabric.clone())
        });
        let mut ca_order_file = self.ca_order.clone();
        let mut routes_name = None;
        if let Some(routes) = &routes {
            let (tables, r, tname, folder) = read_table_file(routes)?;
            reports.push(r);
            fabric = opensm::attach_tables(fabric, &tables, &tname)?;
            routes_name = Some(tname);
            if ca_order_file.is_none() {
                ca_order_file = ftree_ca_order_in(&folder)?;
            }
        }
        finish(
            fabric,
            FabricFormat::Opensm,
            routes_name,
            ca_order_file,
            reports,
            opensm::apply_ca_order,
        )
    }
}

/// Reads OpenSM-style tables (shared by the opensm and ibnetdiscover formats): a folder's
/// `opensm-lfts.dump`, `opensm.fdbs`, or `opensm-lfts.dump`-shaped output (`ibroute`,
/// `dump_fts`, `dump_lfts.sh`). Returns the tables, the report, the file read and its folder.
fn read_table_file(
    routes: &Path,
) -> Result<(Vec<opensm::SwitchTable>, LineReport, String, PathBuf), FabricError> {
    let (table_file, folder) = if routes.is_dir() {
        (routes.join(LFTS_DUMP), routes.to_path_buf())
    } else {
        let folder = match routes.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (routes.to_path_buf(), folder)
    };
    let (tname, ttext) = read(&table_file)?;
    let (tables, r) = if table_file.file_name().and_then(|n| n.to_str()) == Some(FDBS) {
        opensm::parse_fdbs(&ttext, &tname)?
    } else {
        opensm::parse_lfts(&ttext, &tname)?
    };
    Ok((tables, r, tname, folder))
}

/// The ftree engine's CA order in `folder`, when present and not empty (OpenSM leaves it empty
/// when another engine routed).
fn ftree_ca_order_in(folder: &Path) -> Result<Option<PathBuf>, FabricError> {
    let beside = folder.join(FTREE_CA_ORDER);
    Ok((beside.is_file() && !read(&beside)?.1.trim().is_empty()).then_some(beside))
}

/// A format's CA-order reader (`flitsim::apply_ca_order`, `opensm::apply_ca_order`).
type ApplyCaOrder = fn(Fabric, &str, &str) -> Result<(Fabric, LineReport), FabricError>;

/// Applies the CA order in `ca_order_file`, if any, with the format's reader, and sums up.
fn finish(
    fabric: Fabric,
    format: FabricFormat,
    routes: Option<String>,
    ca_order_file: Option<PathBuf>,
    mut reports: Vec<LineReport>,
    apply: ApplyCaOrder,
) -> Result<LoadedFabric, FabricError> {
    let (fabric, ca_order) = match &ca_order_file {
        Some(path) => {
            let (name, text) = read(path)?;
            let (f, r) = apply(fabric, &text, &name)?;
            reports.push(r);
            (f, Some(name))
        }
        None => (fabric, None),
    };
    Ok(LoadedFabric {
        fabric,
        format,
        routes,
        ca_order,
        unrecognised: reports.iter().map(LineReport::unrecognised_count).sum(),
    })
}

impl std::fmt::Display for FabricFiles {
    /// `fabric:PATH`, then `,routes=PATH`, `,ca_order=PATH` and `,format=F` when given: the
    /// form `fatnet_scenario::Network` parses back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fabric:{}", self.fabric.display())?;
        if let Some(r) = &self.routes {
            write!(f, ",routes={}", r.display())?;
        }
        if let Some(c) = &self.ca_order {
            write!(f, ",ca_order={}", c.display())?;
        }
        if self.format != FabricFormat::Auto {
            write!(f, ",format={}", self.format)?;
        }
        Ok(())
    }
}
