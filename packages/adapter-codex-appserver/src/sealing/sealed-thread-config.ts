/**
 * The per-thread `config` that leaves codex no tool to run (each key verified by
 * ablation against codex 0.169): every built-in tool family off, the host-describing prompt
 * sections (<environment_context>, skills, permissions, apps, collaboration) dropped, sub-agents
 * off, and the sealed model catalog — without which catalog models (gpt-6.x, gpt-5.6-*) still get
 * code-mode `exec` (JavaScript that can call apply_patch) whatever the feature flags say.
 */
export const sealedThreadConfig = (catalogPath: string) =>
  ({
    "features.shell_tool": false, // exec_command + write_stdin
    "features.unified_exec": false,
    "features.view_image": false,
    web_search: "disabled",
    "features.multi_agent": false, // multi_agent_v1 namespace
    "features.goals": false, // get_goal / create_goal / update_goal
    "tools.experimental_request_user_input": { enabled: false }, // must be a table
    "features.apps": false,
    "features.plugins": false,
    "features.skill_search": false,
    "features.tool_suggest": false,
    "features.sleep_tool": false,
    "features.image_generation": false,
    "features.shell_snapshot": false, // a login shell per thread, and the environment written to disk
    include_environment_context: false, // no cwd/shell/date of the gateway host upstream
    "skills.include_instructions": false,
    include_permissions_instructions: false,
    include_apps_instructions: false,
    include_collaboration_mode_instructions: false,
    "agents.enabled": false, // the `collaboration` namespace (spawn_agent, send_message, …)
    model_catalog_json: catalogPath,
  }) as const;

/**
 * Everything `thread/start` gets besides `model` and `baseInstructions`. The sandbox, approval
 * policy and empty cwd are the second and third walls should a tool ever slip through: nothing
 * may write, nothing is approved, and there is nothing to read.
 */
export const sealedThreadParams = (catalogPath: string, cwd: string) =>
  ({
    config: sealedThreadConfig(catalogPath),
    sandbox: "read-only",
    approvalPolicy: "never",
    ephemeral: true,
    cwd,
  }) as const;
