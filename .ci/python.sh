# Sourced by .ci/run and .ci/oldest: where a Python of one version is.
#
# find_python X.Y: the path of a Python X.Y that runs, on stdout; fails if none does.
# pyenv's real interpreters come first: its shims exist as commands but may refuse to
# run ("python3.13: command not found") when that version is not the selected one.
find_python() {
    local version=$1 candidate
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/python"$version"; do
        [[ -x $candidate ]] && "$candidate" -c "" 2>/dev/null && { echo "$candidate"; return 0; }
    done
    candidate=$(command -v "python$version") && "$candidate" -c "" 2>/dev/null \
        && { echo "$candidate"; return 0; }
    return 1
}
