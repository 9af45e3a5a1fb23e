# Sourced by scripts/setup.sh and scripts/python.sh (after their die()): Debian
# packages installed as root or through sudo, and the major version of the java
# on PATH.

# apt_install PKG...: installs the Debian packages, quietly.
apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "installing $* needs root (or sudo)"
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq "$@" >/dev/null
}

# java_major: the major version of the java on PATH (`java -version`'s).
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }
