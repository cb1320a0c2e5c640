# bash completion for llmgate(1). Installed as share/bash-completion/completions/llmgate; works with or
# without the bash-completion package (with it, the command after `llmgate run --` completes as itself).

_llmgate_files() { # file names matching $cur
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

_llmgate() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run relay ca status check-config classify reset route usage help --version --help" -- "$cur"))
        return
    fi
    case $prev in
    --config | --textfile | --addr-file) _llmgate_files; return ;;
    --port | --idle) return ;;
    esac
    case ${COMP_WORDS[1]} in
    run)
        local i start=0
        for ((i = 2; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            --) start=$((i + 1)); break ;;
            --config) ((i++)) ;;
            -*) ;;
            *) start=$i; break ;;
            esac
        done
        if [ "$start" -eq 0 ] || [ "$start" -gt "$COMP_CWORD" ]; then
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--config -- --help" -- "$cur"))
            else
                COMPREPLY=($(compgen -c -- "$cur"))
            fi
        elif [ "$start" -eq "$COMP_CWORD" ]; then
            COMPREPLY=($(compgen -c -- "$cur"))
        elif declare -F _command_offset >/dev/null; then
            _command_offset "$start"
        else
            _llmgate_files
        fi
        ;;
    status) COMPREPLY=($(compgen -W "--config --wide --json --prometheus --textfile --watch --help" -- "$cur")) ;;
    check-config)
        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--help" -- "$cur")); else _llmgate_files; fi ;;
    classify)
        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--provider --help" -- "$cur")); else _llmgate_files; fi ;;
    reset) [ "$prev" = --budget ] || COMPREPLY=($(compgen -W "--config --budget --help" -- "$cur")) ;;
    relay) COMPREPLY=($(compgen -W "--config --port --addr-file --idle --name --listen --help" -- "$cur")) ;;
    ca)
        if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "show rotate remove --help" -- "$cur"))
        else COMPREPLY=($(compgen -W "--config" -- "$cur")); fi ;;
    usage)
        case $prev in
        --since) COMPREPLY=($(compgen -W "1d 7d 30d 24h" -- "$cur")); return ;;
        --html) _llmgate_files; return ;;
        --by) COMPREPLY=($(compgen -W "provider provider,model provider,account program provider,account,model,program day" -- "$cur")); return ;;
        esac
        COMPREPLY=($(compgen -W "--config --since --by --json --csv --html --help" -- "$cur")) ;;
    route)
        case $prev in --provider | --program | --header) return ;; esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--config --provider --program --header --help" -- "$cur"))
        else
            _llmgate_files
        fi
        ;;
    help) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "run relay ca status check-config classify reset route usage help version" -- "$cur")) ;;
    esac
}
complete -F _llmgate llmgate
