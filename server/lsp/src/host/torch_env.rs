//! Which embedded inventory answers for the user's environment: the torch and torchcts
//! versions of the environment runs use (`runner::find_python`: the `python` setting,
//! `$VIRTUAL_ENV`, a workspace `.venv`, the Python package's interpreter, `python3`), read
//! from its dist-info folders without running Python (`runner::environment`).

use std::path::{Path, PathBuf};

use accounting::{choose_for_environment, InventoryChoice};
use runner::environment::PythonEnvironment;
use torchcts_core::regex_check::{PythonVersion, RegexPython};

/// The environment the server and CLI assume.
pub fn detect(python_setting: Option<&Path>, workspace: Option<&Path>) -> PythonEnvironment {
    PythonEnvironment::of_python(&runner::find_python(python_setting, workspace))
}

/// The embedded inventory for an environment, with a note when its versions are not the
/// ones the counts are for.
pub fn inventory_choice(env: &PythonEnvironment) -> InventoryChoice {
    choice_for(env, env.torchcts.as_deref())
}

/// The environment's torch with inventories of `torchcts`, with the note for no torch.
fn choice_for(env: &PythonEnvironment, torchcts: Option<&str>) -> InventoryChoice {
    let mut choice = choose_for_environment(env.torch.as_deref(), torchcts);
    if env.torch.is_none() {
        choice.note = Some(format!(
            "no torch found in the environment of {}; counts are for {}",
            env.python.display(),
            choice.label()
        ));
    }
    choice
}

/// A `--torch` value (or the project's `torch`): a release some embedded torchcts has an
/// inventory for (a local suffix like `+cu128` is allowed); whether the chosen torchcts has
/// it is checked on load.
pub fn torch_release_option(value: &str) -> Result<String, String> {
    let wanted = accounting::versions::release(value);
    let embedded = accounting::versions::embedded_torchcts_releases()
        .into_iter()
        .any(|cts| accounting::versions::embedded_torch_releases_of(cts).contains(&wanted));
    if embedded {
        Ok(value.to_string())
    } else {
        Err(accounting::versions::no_inventory_message(value))
    }
}

/// A `--torchcts` value (or the project's `torchcts`): a release with embedded inventories.
pub fn torchcts_release_option(value: &str) -> Result<String, String> {
    match accounting::versions::embedded_torchcts(value) {
        Some(release) => Ok(release.to_string()),
        None => Err(format!(
            "no inventory of torchcts {value} is embedded (embedded: {})",
            accounting::versions::embedded_torchcts_releases().join(", ")
        )),
    }
}

/// The inventory for an explicit `--torch VERSION` (of torchcts `torchcts`, default the
/// newest embedded); the error names the embedded releases.
pub fn inventory_for_torch_option(torchcts: Option<&str>, version: &str) -> Result<InventoryChoice, String> {
    let torchcts = torchcts.unwrap_or(accounting::versions::EMBEDDED_TORCHCTS);
    match accounting::Inventory::for_release(torchcts, version) {
        Some(inventory) => {
            Ok(InventoryChoice { inventory, torch: accounting::versions::release(version).to_string(), note: None })
        }
        None => Err(accounting::versions::no_inventory_message_of(torchcts, version)),
    }
}

/// The inventory for `--torchcts VERSION` without `--torch`: that torchcts's inventory for
/// the environment's torch (exact, else the nearest; no torch: the newest).
pub fn inventory_for_torchcts_option(torchcts: &str, env: &PythonEnvironment) -> InventoryChoice {
    choice_for(env, Some(torchcts))
}

/// The site-packages whose torchcts decides where a run roots node ids (and so whether
/// torchcts' known-crash ledger applies): only an environment that has torchcts. An unrelated
/// `python3` must not decide it (its prefix would, by chance).
pub fn layout_site_packages(env: &PythonEnvironment) -> Option<PathBuf> {
    env.torchcts.as_ref().and(env.site_packages.clone())
}

/// The Python whose `re` answers for the manifest's regexes: the environment's (read from
/// its `pyvenv.cfg` or `lib/pythonX.Y`, never run), and the line outputs give about it.
pub fn regex_python(env: &PythonEnvironment) -> (PythonVersion, String) {
    let choice = RegexPython::for_found(env.python_version);
    let line = choice.describe(&env.python.display().to_string());
    (choice.version, line)
}

/// Said once where no torchcts environment decided the layout.
pub const ASSUMED_LAYOUT_NOTE: &str = "no environment with torchcts found: counts assume the common layout, a venv that shares a folder with the manifest (torchcts' known-crash ledger applies); activate or create that venv ($VIRTUAL_ENV, .venv beside the manifest), or pass --rooted-at-package if your venv shares no folder with the manifest";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_without_torch_gets_the_newest_inventory_and_a_note() {
        let env = PythonEnvironment { python: "/nowhere/bin/python".into(), ..Default::default() };
        let choice = inventory_choice(&env);
        assert_eq!(choice.torch, accounting::newest_torch_release());
        assert!(choice.note.unwrap().contains("no torch found in the environment of /nowhere/bin/python"));
    }

    #[test]
    fn an_unknown_torch_option_lists_the_supported_releases() {
        let err = inventory_for_torch_option(None, "1.13.0").err().expect("1.13 is not supported");
        assert!(err.contains(accounting::newest_torch_release()), "{err}");
        let newest = format!("{}+cu130", accounting::newest_torch_release());
        assert_eq!(inventory_for_torch_option(None, &newest).unwrap().torch, accounting::newest_torch_release());
        let old = inventory_for_torch_option(Some("0.4.0"), "2.12.1").expect("0.4.0 with 2.12.1 is embedded");
        assert_eq!(old.label(), "torchcts 0.4.0 with torch 2.12.1");
        let every = inventory_for_torch_option(Some("0.4.0"), "2.8.0").expect("every 0.4.0 release is embedded");
        assert_eq!(every.label(), "torchcts 0.4.0 with torch 2.8.0");
        let err = inventory_for_torch_option(Some("0.4.0"), "2.8.1").err().expect("torch 2.8.1 was never released");
        assert!(err.contains("no inventory of torchcts 0.4.0 with torch 2.8.1 is embedded"), "{err}");
    }
}
