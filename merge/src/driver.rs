//! How git knows wit's merge driver: its name in the `merge` attribute and the command
//! line in `merge.<name>.driver`. One place for both, so that the code writing them
//! (`wit hook install`) and the code asking whether a file will be merged by wit's driver
//! (the conflict forecast) agree.

/// The driver's name: `merge=wit` in the attributes, `[merge "wit"]` in the config.
pub const NAME: &str = "wit";

/// What `merge.wit.name` says.
pub const DESCRIPTION: &str =
    "wit: merges definitions changed on different sides (wit hook install; wit hook remove)";

/// The subcommand git runs: `<wit> hook merge …`.
const SUBCOMMAND: &str = "hook merge";

/// The driver command for the `wit` binary at `exe`, written already quoted for `sh`
/// (git runs the command with the shell after replacing the `%` placeholders): the
/// ancestor's, ours and theirs' files (`%O %A %B`, the result is written over `%A`),
/// the conflict marker size (`%L`), the path (`%P`) and the conflict labels (`%S %X %Y`,
/// git 2.44 and later; an older git passes them unreplaced and the driver then labels
/// the sides `base`, `ours` and `theirs`).
pub fn command(exe_quoted: &str) -> String {
    format!(
        "{exe_quoted} {SUBCOMMAND} --marker-size %L --path %P \
         --base-label %S --ours-label %X --theirs-label %Y %O %A %B"
    )
}

/// Whether `command` (a `merge.wit.driver` value) is a driver command wit wrote.
pub fn is_wit_command(command: &str) -> bool {
    command.contains(&format!(" {SUBCOMMAND} ")) && command.ends_with(" %O %A %B")
}

/// Whether git will merge a file with wit's driver: its `merge` attribute (as
/// `git check-attr merge` reports it: `wit`, `set`, `unset`, `unspecified`, …) names the
/// driver, and `merge.wit.driver` (`None` when unset) is wit's command.
pub fn installed_for(merge_attribute: &str, driver_command: Option<&str>) -> bool {
    merge_attribute == NAME && driver_command.is_some_and(is_wit_command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_recognised_and_the_attribute_must_name_it() {
        let c = command("'/opt/it'\\''s/wit'");
        assert!(c.starts_with("'/opt/it'\\''s/wit' hook merge --marker-size %L"));
        assert!(is_wit_command(&c));
        assert!(!is_wit_command("mergiraf merge %O %A %B"));
        assert!(installed_for("wit", Some(&c)));
        assert!(!installed_for("unspecified", Some(&c)));
        assert!(!installed_for("wit", None));
    }
}
