<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Charts</name>
    <message>
        <location filename="../widgets/charts.py" line="157"/>
        <source>Utilization</source>
        <extracomment>(GpuInfo attribute, chart title, unit, fixed y range or None)</extracomment>
        <translation>利用率</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="158"/>
        <source>Memory used</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="159"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="160"/>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="163"/>
        <source>1 min</source>
        <translation>1 分钟</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="164"/>
        <source>5 min</source>
        <translation>5 分钟</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="165"/>
        <source>1 h</source>
        <translation>1 小时</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="166"/>
        <source>24 h</source>
        <translation>24 小时</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="211"/>
        <source>No GPU samples: this machine has no NVIDIA GPU that NVML can read, so there is nothing to chart.</source>
        <translation>没有 GPU 采样：本机没有 NVML 可读取的 NVIDIA GPU，因此没有可绘制的数据。</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="217"/>
        <source>Show the last</source>
        <translation>显示最近</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="310"/>
        <source>No training metrics yet. TensorDeck charts the loss and metrics it reads in the task logs (Keras progress bars, lines like &apos;step 100 loss=0.25&apos;) and what the script reports with tensordeck_runtime.report(step, loss=...).</source>
        <translation>还没有训练指标。TensorDeck 会绘制从任务日志中读到的损失和指标（Keras 进度条、形如 “step 100 loss=0.25” 的行），以及脚本通过 tensordeck_runtime.report(step, loss=...) 报告的数据。</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="316"/>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="321"/>
        <source>Reset zoom</source>
        <translation>重置缩放</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="327"/>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <location filename="../widgets/charts.py" line="437"/>
        <location filename="../widgets/charts.py" line="445"/>
        <source>step</source>
        <translation>步数</translation>
    </message>
</context>
<context>
    <name>ClusterView</name>
    <message>
        <location filename="../views/cluster.py" line="60"/>
        <source>The config file (read-only)</source>
        <extracomment>What validate() found at once, before the deeper check adds its own.</extracomment>
        <translation>配置文件（只读）</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="79"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="128"/>
        <source>Remove the unknown keys: {keys}</source>
        <translation>移除未知的键：{keys}</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="208"/>
        <source>Checking the interpreter, the ports and the doctor&apos;s pre-run checks…</source>
        <translation>正在检查解释器、端口和诊断的运行前检查…</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="225"/>
        <source>No problem in the fields. Saved, the file is also checked as `tensordeck validate` does.</source>
        <translation>各字段没有问题。保存后，文件还会像 `tensordeck validate` 那样被完整检查。</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="249"/>
        <source>{n} problem(s) to fix before this config can run.</source>
        <translation>还有 {n} 个问题需要修正，之后才能运行此配置。</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="256"/>
        <source>Valid: this is exactly the file `tensordeck --run` reads.</source>
        <translation>有效：这正是 `tensordeck --run` 读取的文件。</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="258"/>
        <source>The doctor warns: {titles}</source>
        <translation>诊断提醒：{titles}</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="219"/>
        <source>{path} does not exist</source>
        <translation>{path} 不存在</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="181"/>
        <source>Not saved yet</source>
        <translation>尚未保存</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="203"/>
        <source>two machines are named {name!r}: give each its own name</source>
        <translation>有两台机器都叫 {name!r}：请给每台机器起不同的名字</translation>
    </message>
    <message>
        <location filename="../views/cluster.py" line="204"/>
        <source>a machine has no name: give it one</source>
        <translation>有一台机器没有名字：请给它起个名字</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <location filename="../views/history.py" line="354"/>
        <source>Compare runs</source>
        <translation>比较运行</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="358"/>
        <source>Reading the runs&apos; metrics…</source>
        <translation>正在读取各次运行的指标…</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="373"/>
        <source>{count} runs; hover a chart for the values at a step</source>
        <translation>{count} 次运行；鼠标悬停在图表上可查看某一步的数值</translation>
    </message>
</context>
<context>
    <name>ConfigWizard</name>
    <message>
        <location filename="../wizard.py" line="584"/>
        <source>New TensorDeck job</source>
        <translation>新建 TensorDeck 作业</translation>
    </message>
</context>
<context>
    <name>EnvCreateDialog</name>
    <message>
        <location filename="../envcreate_dialog.py" line="42"/>
        <source>Make a TensorFlow environment</source>
        <translation>创建 TensorFlow 环境</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="48"/>
        <source>Looking at this machine…</source>
        <translation>正在查看本机…</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="59"/>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="61"/>
        <source>Cancel build</source>
        <translation>取消构建</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="63"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="91"/>
        <source>This environment will work on this machine. Build it?</source>
        <translation>此环境可在本机上运行。要构建吗？</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="93"/>
        <source>TensorDeck cannot build this one itself: follow the steps.</source>
        <translation>TensorDeck 无法自行构建此环境：请按上面的步骤操作。</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="96"/>
        <source>No environment can be planned: {error}</source>
        <translation>无法规划环境：{error}</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="108"/>
        <source>Building… (Cancel removes what was made)</source>
        <translation>正在构建…（取消会删除已创建的内容）</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="117"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../envcreate_dialog.py" line="140"/>
        <source>The build stopped: {error}</source>
        <translation>构建已停止：{error}</translation>
    </message>
</context>
<context>
    <name>EnvEditor</name>
    <message>
        <location filename="../widgets/env_editor.py" line="18"/>
        <source>Variable</source>
        <translation>变量</translation>
    </message>
    <message>
        <location filename="../widgets/env_editor.py" line="18"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../widgets/env_editor.py" line="19"/>
        <source>Add variable</source>
        <translation>添加变量</translation>
    </message>
</context>
<context>
    <name>ExplainDialog</name>
    <message>
        <location filename="../explain_dialog.py" line="60"/>
        <source>Explain an error</source>
        <translation>解释错误</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="66"/>
        <source>Paste the error output here: what &apos;import tensorflow&apos; printed, or the end of the training run&apos;s output.</source>
        <translation>在此粘贴错误输出：“import tensorflow” 打印的内容，或训练运行输出的末尾部分。</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="68"/>
        <source>Open a log…</source>
        <translation>打开日志…</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="71"/>
        <source>Detect from the text</source>
        <translation>从文本中识别</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="75"/>
        <source>e.g. 2.10</source>
        <translation>例如 2.10</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="76"/>
        <source>The TensorFlow version, where the output does not say it (major.minor)</source>
        <translation>TensorFlow 版本，在输出中没有写明时填写（主版本.次版本）</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="80"/>
        <source>e.g. 12.2</source>
        <translation>例如 12.2</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="81"/>
        <source>The CUDA toolkit installed where the output came from, where the output does not say it</source>
        <translation>输出所在机器上安装的 CUDA 工具包版本（输出中没有写明时填写）</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="88"/>
        <source>Explain</source>
        <translation>解释</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="108"/>
        <source>Platform:</source>
        <translation>平台：</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="110"/>
        <source>TensorFlow version:</source>
        <translation>TensorFlow 版本：</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="112"/>
        <source>CUDA installed:</source>
        <translation>已安装的 CUDA：</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="136"/>
        <source>Open a log</source>
        <translation>打开日志</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="148"/>
        <source>{path} is empty: open the file that holds the error output, or paste the output</source>
        <translation>{path} 是空的：请打开包含错误输出的文件，或直接粘贴输出</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="171"/>
        <source>Paste an error output or open a log first</source>
        <translation>请先粘贴错误输出或打开日志</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="186"/>
        <source>Not a version: give major.minor, e.g. 2.10</source>
        <translation>不是版本号：请填写“主版本.次版本”，例如 2.10</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="196"/>
        <source>{n} finding(s), the most likely cause first</source>
        <translation>{n} 条诊断结果，最可能的原因在最前</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="208"/>
        <source>The doctor failed: {error}</source>
        <translation>诊断失败：{error}</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="214"/>
        <source>Cannot read {path}: {reason}. Open another file, or paste the output</source>
        <translation>无法读取 {path}：{reason}。请打开另一个文件，或粘贴输出</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="216"/>
        <source>{path} is not a file (a folder or a device?): open the file that holds the error output, or paste the output</source>
        <translation>{path} 不是文件（是文件夹或设备？）：请打开包含错误输出的文件，或粘贴输出</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="218"/>
        <source>{path} is a pipe no program wrote to in {reason} s: start the program that writes it first, or paste the output</source>
        <translation>{path} 是一个管道，{reason} 秒内没有程序写入：请先启动写入它的程序，或粘贴输出</translation>
    </message>
    <message>
        <location filename="../explain_dialog.py" line="227"/>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
</context>
<context>
    <name>FieldProblems</name>
    <message>
        <location filename="../views/field_problems.py" line="33"/>
        <source>Row {row}</source>
        <extracomment>The forms&apos; problem labels, by what they show: a field of the file, a group of them (&quot;restart&quot;, &quot;advanced&quot;), or &quot;&quot; for what belongs to no field. Keys shown together in the Advanced group, each named there.</extracomment>
        <translation>第 {row} 行</translation>
    </message>
</context>
<context>
    <name>FindingCard</name>
    <message>
        <location filename="../views/cards.py" line="123"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../views/cards.py" line="129"/>
        <source>Run…</source>
        <translation>运行…</translation>
    </message>
    <message>
        <location filename="../views/cards.py" line="146"/>
        <source>This command is for another system ({shell})</source>
        <translation>此命令适用于其他系统（{shell}）</translation>
    </message>
    <message>
        <location filename="../views/cards.py" line="139"/>
        <source>Needs administrator rights: run it yourself in an administrator terminal.</source>
        <translation>需要管理员权限：请在管理员终端中自行运行。</translation>
    </message>
    <message>
        <location filename="../views/cards.py" line="142"/>
        <source>Involves restarting the computer: run it yourself.</source>
        <translation>涉及重启计算机：请自行运行。</translation>
    </message>
    <message>
        <location filename="../views/cards.py" line="148"/>
        <source>Run it in a terminal: it needs a shell or an activated environment, or has parts to fill in.</source>
        <translation>请在终端中运行：它需要 shell 或已激活的环境，或有待填写的部分。</translation>
    </message>
</context>
<context>
    <name>GpuCard</name>
    <message>
        <location filename="../views/machine.py" line="72"/>
        <source>Memory: {memory}</source>
        <translation>显存：{memory}</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="73"/>
        <source>Utilization: {value}</source>
        <translation>利用率：{value}</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="74"/>
        <source>Temperature: {value}</source>
        <translation>温度：{value}</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="75"/>
        <source>Power: {value}</source>
        <translation>功耗：{value}</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="76"/>
        <source>Driver {driver} · CUDA up to {cuda}</source>
        <translation>驱动 {driver} · 最高支持 CUDA {cuda}</translation>
    </message>
</context>
<context>
    <name>GpuPicker</name>
    <message>
        <location filename="../widgets/task_editor.py" line="53"/>
        <source>Default (ps: none, others: all)</source>
        <extracomment>What &quot;On failure&quot; offers first: core&apos;s own count for parameter_server workers (its default, 0, is refused with on_failure).</extracomment>
        <translation>默认（ps 不用 GPU，其他任务使用全部 GPU）</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="54"/>
        <source>No GPU (CPU only)</source>
        <translation>不用 GPU（仅 CPU）</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="63"/>
        <source>No NVIDIA GPU found on this machine</source>
        <translation>本机未找到 NVIDIA GPU</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="89"/>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="91"/>
        <source>None (CPU)</source>
        <translation>无（CPU）</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <location filename="../views/history.py" line="236"/>
        <source>restarts</source>
        <translation>重启次数</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="94"/>
        <source>History</source>
        <extracomment>How much of each log the history shows (the file has everything).</extracomment>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="96"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="97"/>
        <source>Open run folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="98"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="99"/>
        <source>The training metrics of the selected runs in one chart (select several with Ctrl or Shift)</source>
        <translation>在一张图中显示所选运行的训练指标（按住 Ctrl 或 Shift 可多选）</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="101"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="102"/>
        <location filename="../views/history.py" line="339"/>
        <source>Run again</source>
        <translation>再次运行</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="105"/>
        <source>Runs what this run ran (the config kept in its run folder, even if the config file changed since), in a new run folder</source>
        <translation>在新的运行文件夹中重新运行这次运行的内容（使用其运行文件夹中保存的配置，即使配置文件此后已更改）</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="120"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="120"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="121"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="121"/>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="122"/>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="176"/>
        <source>Runs found next to the configs you opened: {folders}</source>
        <extracomment>The open comparisons (each a window of its own).</extracomment>
        <translation>在你打开过的配置文件旁找到的运行：{folders}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="177"/>
        <source>none yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="198"/>
        <source>No runs yet. Start one from the Run view.</source>
        <translation>还没有运行记录。请在“运行”页面启动一次。</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="231"/>
        <source>exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="244"/>
        <source>Config: {path}</source>
        <translation>配置：{path}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="245"/>
        <source>Reason: {reason}</source>
        <translation>原因：{reason}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="263"/>
        <source>Metrics so far: {metrics}</source>
        <translation>目前的指标：{metrics}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="265"/>
        <source>Final metrics: {metrics}</source>
        <translation>最终指标：{metrics}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="268"/>
        <source>The config file changed since this run (or is gone): Run again runs what this run ran.</source>
        <translation>配置文件在这次运行之后已更改（或已不存在）：“再次运行”将运行这次运行当时的内容。</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="271"/>
        <source>Environment: {variables}</source>
        <translation>环境变量：{variables}</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="291"/>
        <source>All tasks</source>
        <translation>全部任务</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="317"/>
        <location filename="../views/history.py" line="329"/>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <location filename="../views/history.py" line="318"/>
        <source>Delete these run folders with their logs and metrics? This cannot be undone.</source>
        <translation>删除这些运行文件夹及其日志和指标？此操作无法撤销。</translation>
    </message>
</context>
<context>
    <name>InstallDialog</name>
    <message>
        <location filename="../tensorboard.py" line="167"/>
        <source>Install TensorBoard</source>
        <translation>安装 TensorBoard</translation>
    </message>
    <message>
        <location filename="../tensorboard.py" line="176"/>
        <source>Installing…</source>
        <translation>正在安装…</translation>
    </message>
</context>
<context>
    <name>InterpreterCard</name>
    <message>
        <location filename="../views/machine.py" line="104"/>
        <source>Use for this job</source>
        <translation>用于此作业</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="105"/>
        <source>Train the job in the Cluster view with this interpreter</source>
        <translation>在“集群”视图中用此解释器训练作业</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="112"/>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="118"/>
        <source>Also started as: {paths}</source>
        <translation>也可通过以下路径启动：{paths}</translation>
    </message>
</context>
<context>
    <name>InterpreterPage</name>
    <message>
        <location filename="../wizard.py" line="101"/>
        <source>Welcome to TensorDeck</source>
        <extracomment>Strategies that need NVIDIA GPUs to mean anything: not offered on a machine without one. Page ids: the machines page is skipped for the strategies that run one process. The machine&apos;s GPUs, when the search (``look``) has read them: list[(index, name)].</extracomment>
        <translation>欢迎使用 TensorDeck</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="102"/>
        <source>First, the Python that will run your training. It needs TensorFlow; TensorDeck itself does not.</source>
        <translation>首先选择运行训练的 Python。它需要安装 TensorFlow；TensorDeck 本身不需要。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="106"/>
        <source>The Python running TensorDeck</source>
        <translation>运行 TensorDeck 的 Python</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="155"/>
        <source>Looking for Python installations…</source>
        <translation>正在查找已安装的 Python…</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="109"/>
        <source>Full check (imports TensorFlow)</source>
        <translation>完整检查（导入 TensorFlow）</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="112"/>
        <source>Training interpreter</source>
        <translation>训练用解释器</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="145"/>
        <location filename="../wizard.py" line="194"/>
        <source>Checking {python}…</source>
        <extracomment>The proved interpreter&apos;s version (&quot;3.10.12&quot;), None until proved.</extracomment>
        <translation>正在检查 {python}…</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="212"/>
        <source>Python {version}: TensorFlow is not installed. Install it, or choose another Python.</source>
        <translation>Python {version}：未安装 TensorFlow。请安装它，或选择其他 Python。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="216"/>
        <source>Python {version} with TensorFlow {tf}.</source>
        <translation>Python {version}，已安装 TensorFlow {tf}。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="223"/>
        <source>Importing TensorFlow in {python}…</source>
        <translation>正在 {python} 中导入 TensorFlow…</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="235"/>
        <source>No problem found.</source>
        <translation>未发现问题。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="238"/>
        <source>The Machine view shows each fix.</source>
        <translation>“本机”页面列出了每个问题的修复方法。</translation>
    </message>
</context>
<context>
    <name>JobForm</name>
    <message>
        <location filename="../views/job_form.py" line="95"/>
        <source>train.py (relative to the config file&apos;s folder)</source>
        <translation>train.py（相对于配置文件所在的文件夹）</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="96"/>
        <location filename="../views/job_form.py" line="106"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="99"/>
        <source>--epochs 5 --data {run_dir}/data</source>
        <translation>--epochs 5 --data {run_dir}/data</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="100"/>
        <source>Add file…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="105"/>
        <source>Default: the Python running TensorDeck</source>
        <translation>默认：运行 TensorDeck 的 Python</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="109"/>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="112"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="113"/>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="115"/>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="117"/>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="118"/>
        <source>Interpreter</source>
        <translation>解释器</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="124"/>
        <source>No NVIDIA GPU was found on this machine: tasks run on the CPU.</source>
        <translation>本机未找到 NVIDIA GPU：任务将在 CPU 上运行。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="128"/>
        <source>Tasks</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="138"/>
        <source>Only when tasks run on other machines too, e.g. 192.168.1.10</source>
        <translation>仅当任务也在其他机器上运行时填写，例如 192.168.1.10</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="140"/>
        <source>Each machine needs an SSH server. On Windows 10/11, in an administrator PowerShell:</source>
        <translation>每台机器都需要 SSH 服务器。在 Windows 10/11 上，于管理员 PowerShell 中运行：</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="146"/>
        <source>Preflight</source>
        <translation>预检</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="147"/>
        <source>Check every machine and the connections between them before a run</source>
        <translation>运行前检查每台机器及它们之间的连接</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="149"/>
        <source>Machines</source>
        <translation>机器</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="151"/>
        <source>Other machines of the LAN that run tasks (choose them in the tasks&apos; Node column).</source>
        <translation>局域网中运行任务的其他机器（在任务的“节点”列中选择）。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="158"/>
        <source>This machine&apos;s address</source>
        <translation>本机地址</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="167"/>
        <source>Environment variables</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="175"/>
        <source>Never: the first failure fails the run</source>
        <translation>从不：任一任务失败即整个运行失败</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="176"/>
        <source>On failure: restart the task</source>
        <translation>失败时：重启该任务</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="187"/>
        <source>Failures and stopping</source>
        <translation>失败与停止</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="189"/>
        <source>Restart policy</source>
        <translation>重启策略</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="190"/>
        <source>Max restarts per task</source>
        <translation>每个任务最多重启次数</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="191"/>
        <source>First restart after</source>
        <translation>首次重启等待</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="193"/>
        <source>Stop grace period</source>
        <translation>停止宽限时间</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="199"/>
        <source>Default for the strategy</source>
        <translation>按策略默认</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="200"/>
        <source>TF_CONFIG variable</source>
        <translation>TF_CONFIG 环境变量</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="201"/>
        <source>--job_name/--task_index flags</source>
        <translation>--job_name/--task_index 命令行参数</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="201"/>
        <source>Both</source>
        <translation>两者都用</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="205"/>
        <source>auto (hierarchical copy on Windows)</source>
        <translation>自动（Windows 上为 hierarchical copy）</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="211"/>
        <source>Default: runs/&lt;time&gt;-&lt;name&gt; next to the config</source>
        <translation>默认：配置文件旁的 runs/&lt;时间&gt;-&lt;名称&gt;</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="212"/>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="214"/>
        <source>Cluster description</source>
        <translation>集群描述方式</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="215"/>
        <source>All-reduce</source>
        <translation>All-reduce 方式</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="216"/>
        <source>Run folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="376"/>
        <source>Training script</source>
        <translation>训练脚本</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="377"/>
        <source>Python scripts (*.py);;All files (*)</source>
        <translation>Python 脚本 (*.py);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="383"/>
        <source>File argument</source>
        <translation>文件参数</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="389"/>
        <source>Training interpreter</source>
        <translation>训练用解释器</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="390"/>
        <source>Python ({pattern});;All files (*)</source>
        <translation>Python ({pattern});;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <location filename="../widgets/log_view.py" line="301"/>
        <source>Search the logs (Enter: next match)</source>
        <extracomment>Under a flood, the tail is redrawn at most this often (seconds), and only its last FLOOD_TAIL lines (a screenful is ~50); the full tail comes back when the flood stops. Longer lines are cut in the pane (the log file keeps them whole). TensorFlow&apos;s lines under this TF_CPP_MIN_LOG_LEVEL are not drawn (0: all are). The pane shows the end and keeps showing it: as lines come, and when a resize or a relayout moves the end (the scroll bar&apos;s value stays put then). The user scrolling up stops it; back at the end, it follows again.</extracomment>
        <translation>搜索日志（回车：下一个匹配）</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="303"/>
        <source>Only matching lines</source>
        <translation>只显示匹配的行</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="304"/>
        <source>Raw output</source>
        <translation>原始输出</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="306"/>
        <source>Show TensorFlow&apos;s known-harmless start-up messages (such as &quot;failed call to cuInit&quot; on a CPU run) like every other line instead of dimmed, and the lines the job&apos;s TF_CPP_MIN_LOG_LEVEL hides</source>
        <translation>像其他行一样显示 TensorFlow 已知无害的启动消息（例如 CPU 运行时的“failed call to cuInit”），而不是变暗显示；也显示作业的 TF_CPP_MIN_LOG_LEVEL 所隐藏的行</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="311"/>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="312"/>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <location filename="../widgets/log_view.py" line="322"/>
        <source>All tasks</source>
        <translation>全部任务</translation>
    </message>
</context>
<context>
    <name>MachineView</name>
    <message>
        <location filename="../views/machine.py" line="140"/>
        <source>Machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="141"/>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="161"/>
        <source>Explain an error…</source>
        <translation>解释错误…</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="162"/>
        <source>Paste an error output or open a log: the doctor names the cause and the fix</source>
        <translation>粘贴错误输出或打开日志：诊断会指出原因和修复方法</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="182"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="183"/>
        <source>Training interpreters</source>
        <translation>训练用解释器</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="184"/>
        <source>Findings</source>
        <translation>诊断结果</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="229"/>
        <source>Checking this machine…</source>
        <translation>正在检查本机…</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="273"/>
        <source>The check failed: {error}</source>
        <translation>检查失败：{error}</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="297"/>
        <source>Training still runs on the CPU.</source>
        <translation>训练仍可在 CPU 上运行。</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="307"/>
        <source>No NVIDIA driver</source>
        <translation>没有 NVIDIA 驱动</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="308"/>
        <source>The NVIDIA driver is not running</source>
        <translation>NVIDIA 驱动未运行</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="309"/>
        <source>NVIDIA driver mismatch: reboot</source>
        <translation>NVIDIA 驱动版本不一致：请重启</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="310"/>
        <source>No NVIDIA GPU</source>
        <translation>没有 NVIDIA GPU</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="311"/>
        <source>The GPUs could not be read</source>
        <translation>无法读取 GPU 信息</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="325"/>
        <source>No Python found. Install Python with TensorFlow, or add one in the Cluster view&apos;s Interpreter field.</source>
        <translation>未找到 Python。请安装带 TensorFlow 的 Python，或在“集群”页面的“解释器”一栏中指定。</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="337"/>
        <source>Nothing to fix: no problem found.</source>
        <translation>无需修复：未发现问题。</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="352"/>
        <source>Run this command?</source>
        <translation>运行此命令？</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="353"/>
        <source>TensorDeck will run:

{command}

It may change your system. Continue?</source>
        <translation>TensorDeck 将运行：

{command}

这可能会修改你的系统。是否继续？</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="384"/>
        <source>[exit code {code}]</source>
        <translation>[退出码 {code}]</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="369"/>
        <location filename="../views/machine.py" line="393"/>
        <source>[could not start: {error}]</source>
        <translation>[无法启动：{error}]</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="144"/>
        <source>Not checked yet</source>
        <extracomment>When the last check ran and how long it took (a check answered from the probe cache takes a moment: without this, &quot;Check again&quot; looks as if it did nothing).</extracomment>
        <translation>尚未检查</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="226"/>
        <source>Checking… (started {time})</source>
        <translation>正在检查…（开始于 {time}）</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="268"/>
        <source>Checked at {time} ({seconds:.1f} s): {n} interpreter(s), {m} finding(s)</source>
        <translation>检查于 {time}（{seconds:.1f} 秒）：{n} 个解释器，{m} 项发现</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="275"/>
        <source>Check failed at {time} ({seconds:.1f} s)</source>
        <translation>检查失败于 {time}（{seconds:.1f} 秒）</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="152"/>
        <source>Make a TensorFlow environment…</source>
        <translation>创建 TensorFlow 环境…</translation>
    </message>
    <message>
        <location filename="../views/machine.py" line="153"/>
        <source>Build the TensorFlow environment that uses this machine&apos;s GPU, check it, and add it here</source>
        <translation>构建能使用本机 GPU 的 TensorFlow 环境，检查它，并添加到这里</translation>
    </message>
</context>
<context>
    <name>MachinesPage</name>
    <message>
        <location filename="../wizard.py" line="303"/>
        <source>Other machines of the LAN</source>
        <translation>局域网中的其他机器</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="304"/>
        <source>Only if some tasks should run on other computers. Leave it empty to run everything on this machine.</source>
        <translation>仅当部分任务要在其他电脑上运行时填写。留空则所有任务都在本机运行。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="308"/>
        <source>Each machine needs an SSH server. On Windows 10/11, in an administrator PowerShell:</source>
        <translation>每台机器都需要 SSH 服务器。在 Windows 10/11 上，于管理员 PowerShell 中运行：</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="321"/>
        <source>two machines are named {name!r}: give each its own name</source>
        <translation>有两台机器都叫 {name!r}：请给每台机器起不同的名字</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="322"/>
        <source>a machine has no name: give it one</source>
        <translation>有一台机器没有名字：请给它起个名字</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../main_window.py" line="96"/>
        <source>Machine</source>
        <extracomment>The window&apos;s size at the first start, where the screen has room for it. Below this width the navigation goes above the pages (the Run view needs ~640 pixels). The command that starts TensorDeck again after a language switch (this process&apos;s). Whether preflight imports TensorFlow on every machine (slow; tests switch it off).</extracomment>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="96"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="96"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="96"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="167"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="168"/>
        <source>&amp;New (wizard)…</source>
        <translation>新建（向导）(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="170"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="172"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="173"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="175"/>
        <source>Save &amp;as…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="178"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="180"/>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="181"/>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="182"/>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="183"/>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="184"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="187"/>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="193"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="194"/>
        <source>&amp;About TensorDeck</source>
        <translation>关于 TensorDeck(&amp;A)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="212"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="222"/>
        <source>About TensorDeck</source>
        <translation>关于 TensorDeck</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="223"/>
        <source>TensorDeck {version}
Launch, watch and diagnose TensorFlow training.</source>
        <translation>TensorDeck {version}
启动、监视和诊断 TensorFlow 训练。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="232"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="233"/>
        <source>The config has unsaved changes. Save them first?</source>
        <translation>配置有未保存的修改。要先保存吗？</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="269"/>
        <location filename="../main_window.py" line="309"/>
        <location filename="../main_window.py" line="326"/>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="270"/>
        <source>{path} could not be saved ({error}); nothing was started. The config is in the Cluster view: save it elsewhere with File &gt; Save as.</source>
        <translation>无法保存 {path}（{error}），因此没有启动任何运行。配置仍在“集群”视图中：请用“文件 &gt; 另存为”保存到其他位置。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="284"/>
        <source>Open a config</source>
        <translation>打开配置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="286"/>
        <location filename="../main_window.py" line="320"/>
        <source>TensorDeck config (*.json)</source>
        <translation>TensorDeck 配置 (*.json)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="294"/>
        <source>Cannot open</source>
        <translation>无法打开</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="319"/>
        <source>Save the config</source>
        <translation>保存配置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="343"/>
        <source>new config</source>
        <translation>新配置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="378"/>
        <source>Fix the config first</source>
        <translation>请先修正配置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="386"/>
        <source>Save the changes?</source>
        <translation>保存更改？</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="387"/>
        <source>The run reads the config file. Save your changes to {path} first?</source>
        <translation>运行读取的是配置文件。要先把更改保存到 {path} 吗？</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="429"/>
        <source>Run again</source>
        <translation>再次运行</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="430"/>
        <source>A run started from this window is going on: stop it, or wait until it ends, then press Run again.</source>
        <translation>此窗口启动的运行仍在进行：请先停止它，或等它结束，然后再按“再次运行”。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="440"/>
        <source>TensorDeck: {name} {status}</source>
        <translation>TensorDeck：{name} {status}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="504"/>
        <source>A run is going on</source>
        <translation>有运行正在进行</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="505"/>
        <source>Closing TensorDeck stops the run and all its tasks. Close anyway?</source>
        <translation>关闭 TensorDeck 会停止该运行及其所有任务。仍要关闭吗？</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="401"/>
        <source>Checking the machines…</source>
        <translation>正在检查机器…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="213"/>
        <source>TensorDeck shows the new language after a restart. Restart now?</source>
        <translation>TensorDeck 重启后才会显示新的语言。现在重启吗？</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="411"/>
        <location filename="../main_window.py" line="421"/>
        <source>Preflight</source>
        <translation>预检</translation>
    </message>
</context>
<context>
    <name>NodeEditor</name>
    <message>
        <location filename="../widgets/node_editor.py" line="40"/>
        <source>Name</source>
        <extracomment>The columns edited as text: column -&gt; config key.</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="40"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="40"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="40"/>
        <source>SSH port</source>
        <translation>SSH 端口</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="41"/>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="41"/>
        <source>Work folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="41"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="41"/>
        <source>Key file</source>
        <translation>密钥文件</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="42"/>
        <source>Password</source>
        <translation>密码</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="44"/>
        <source>Log in with the password stored in the system keyring (tensordeck login CONFIG NODE stores it; it never goes into the file).</source>
        <translation>使用保存在系统密钥环中的密码登录（由 tensordeck login CONFIG NODE 保存；密码绝不写入文件）。</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="46"/>
        <source>Add machine</source>
        <translation>添加机器</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="62"/>
        <source>your user name</source>
        <translation>你的用户名</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="64"/>
        <source>same as host</source>
        <translation>与主机相同</translation>
    </message>
    <message>
        <location filename="../widgets/node_editor.py" line="66"/>
        <source>agent, ~/.ssh</source>
        <translation>agent、~/.ssh</translation>
    </message>
</context>
<context>
    <name>NodeGpuPanel</name>
    <message>
        <location filename="../widgets/node_gpu_panel.py" line="48"/>
        <source>Node {name}</source>
        <translation>节点 {name}</translation>
    </message>
    <message>
        <location filename="../widgets/node_gpu_panel.py" line="55"/>
        <source>Waiting for the first sample from {name}…</source>
        <translation>正在等待 {name} 的第一个采样…</translation>
    </message>
</context>
<context>
    <name>PreflightDialog</name>
    <message>
        <location filename="../preflight_dialog.py" line="38"/>
        <source>Preflight</source>
        <translation>预检</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="42"/>
        <source>All {n} checks passed: the job can start.</source>
        <translation>全部 {n} 项检查通过：可以开始运行。</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="43"/>
        <source>{failed} of {n} checks failed: fix them, then run preflight again.</source>
        <translation>{n} 项检查中有 {failed} 项失败：修复后请再次预检。</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="68"/>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="68"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="90"/>
        <source>Copy fixes</source>
        <translation>复制修复方法</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="96"/>
        <source>Trust {host}…</source>
        <translation>信任 {host}…</translation>
    </message>
    <message>
        <location filename="../preflight_dialog.py" line="61"/>
        <source>What to do (select and copy):</source>
        <translation>修复方法（可选中复制）：</translation>
    </message>
</context>
<context>
    <name>ResourcePanel</name>
    <message>
        <location filename="../widgets/resources.py" line="119"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="120"/>
        <source>Memory used</source>
        <translation>已用内存</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="46"/>
        <location filename="../widgets/resources.py" line="57"/>
        <source>Task</source>
        <extracomment>What the table cannot show of tasks that run elsewhere (inside WSL, on a node).</extracomment>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="46"/>
        <location filename="../widgets/resources.py" line="56"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="47"/>
        <source>CPU (% of a core)</source>
        <translation>CPU（单核的 %）</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="47"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="48"/>
        <location filename="../widgets/resources.py" line="56"/>
        <source>GPU memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="56"/>
        <source>GPU</source>
        <extracomment>Every compute process on the GPUs, this run&apos;s or not (as nvitop lists them).</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="56"/>
        <source>Process</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="86"/>
        <source>Tasks inside WSL run in the WSL 2 virtual machine: their CPU, memory and GPU memory count as that machine&apos;s (vmmem, and NVML&apos;s processes of this machine), not per task; their rows show the stand-in that relays them.</source>
        <translation>WSL 中的任务运行在 WSL 2 虚拟机里：它们的 CPU、内存和 GPU 显存计入该虚拟机（vmmem，以及本机 NVML 所见的进程），无法按任务区分；这些行显示的是转发它们的替身进程。</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="90"/>
        <source>Tasks on other machines: their rows show the stand-in here; their GPUs are in the Node GPUs tab.</source>
        <translation>其他机器上的任务：这些行显示的是本机上的替身进程；它们的 GPU 见“节点 GPU”页。</translation>
    </message>
    <message>
        <location filename="../widgets/resources.py" line="141"/>
        <source>CPU {cpu:.0f}% · memory {used:,.0f} of {total:,.0f} MiB</source>
        <translation>CPU {cpu:.0f}% · 内存 {used:,.0f} / {total:,.0f} MiB</translation>
    </message>
</context>
<context>
    <name>RestartPicker</name>
    <message>
        <location filename="../widgets/task_editor.py" line="105"/>
        <source>Job&apos;s policy</source>
        <translation>作业的策略</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="106"/>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="106"/>
        <source>On failure</source>
        <translation>失败时</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="114"/>
        <location filename="../widgets/task_editor.py" line="117"/>
        <source> times</source>
        <translation> 次</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="109"/>
        <source>Job&apos;s policy: the job&apos;s restart setting; in parameter_server, workers restart on failure</source>
        <translation>作业的策略：使用作业的重启设置；在 parameter_server 中，worker 失败时会重启</translation>
    </message>
</context>
<context>
    <name>ReviewPage</name>
    <message>
        <location filename="../wizard.py" line="483"/>
        <source>Review and save</source>
        <translation>检查并保存</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="484"/>
        <source>This is the config file TensorDeck will save. The command line runs the same file: tensordeck --run FILE</source>
        <translation>这是 TensorDeck 将要保存的配置文件。命令行运行的也是同一个文件：tensordeck --run 文件</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="489"/>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="495"/>
        <source>Start the run when I press Finish</source>
        <translation>点击“完成”后立即开始运行</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="500"/>
        <source>Job name</source>
        <translation>作业名称</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="501"/>
        <source>Config file</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="527"/>
        <source>{path} is a folder: add a file name, e.g. job.json</source>
        <translation>{path} 是一个文件夹：请加上文件名，例如 job.json</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="531"/>
        <source>{path} is a file, not a folder</source>
        <translation>{path} 是文件，不是文件夹</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="539"/>
        <source>{path} exists: Finish asks before replacing it.</source>
        <translation>{path} 已存在：点击“完成”时会先询问是否替换。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="542"/>
        <source>Finish creates the folder {folder}.</source>
        <translation>点击“完成”时会创建文件夹 {folder}。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="555"/>
        <source>Replace the file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="556"/>
        <source>{path} exists. Replace it with this config?</source>
        <translation>{path} 已存在。要用这个配置替换它吗？</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="564"/>
        <source>Save the config</source>
        <translation>保存配置</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="565"/>
        <source>TensorDeck config (*.json)</source>
        <translation>TensorDeck 配置 (*.json)</translation>
    </message>
</context>
<context>
    <name>RowTable</name>
    <message>
        <location filename="../widgets/row_table.py" line="38"/>
        <source>Remove selected</source>
        <translation>删除所选</translation>
    </message>
</context>
<context>
    <name>RunView</name>
    <message>
        <location filename="../views/run.py" line="348"/>
        <source>TensorBoard</source>
        <translation>TensorBoard</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="115"/>
        <source>Run</source>
        <extracomment>Substrings a metric line must contain before it is worth a regex (floods stay cheap). When the tasks are killed if they have not exited (monotonic), while stopping. Offered when a start was refused for nodes whose host keys are not known yet.</extracomment>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="117"/>
        <location filename="../views/run.py" line="220"/>
        <source>No config loaded: open one, or create one with File &gt; New.</source>
        <translation>尚未加载配置：请打开一个，或通过“文件 &gt; 新建”创建。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="129"/>
        <source>Start</source>
        <extracomment>Why the last run ended, or why it did not start: stays after the dialog is closed. One line per line of it, cut to the page&apos;s width: it never pushes the log down.</extracomment>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="131"/>
        <location filename="../views/run.py" line="480"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="134"/>
        <source>Run on:</source>
        <translation>运行于：</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="136"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="136"/>
        <source>the LAN</source>
        <translation>局域网</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="137"/>
        <source>a Slurm cluster</source>
        <translation>Slurm 集群</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="147"/>
        <source>Open run folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="149"/>
        <source>Open TensorBoard</source>
        <translation>打开 TensorBoard</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="174"/>
        <source>Logs</source>
        <extracomment>CPU and memory of the machine and of each task, sampled once a second while shown.</extracomment>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="175"/>
        <source>Training metrics</source>
        <translation>训练指标</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="176"/>
        <source>Resources</source>
        <translation>资源</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="251"/>
        <source>Tasks of this config run on other machines (the tasks&apos; Node column in Cluster): it runs on the LAN.</source>
        <translation>此配置的任务在其他机器上运行（“集群”中任务的“节点”列）：它在局域网上运行。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="254"/>
        <source>No task runs on the config&apos;s other machines ({names}): choose one in the tasks&apos; Node column in Cluster to run on the LAN.</source>
        <translation>没有任务在配置中的其他机器（{names}）上运行：要在局域网上运行，请在“集群”中任务的“节点”列选择一台。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="258"/>
        <source>This config names no other machine: add them under Cluster &gt; Machines, then choose them in the tasks&apos; Node column, to run on the LAN.</source>
        <translation>此配置没有列出其他机器：要在局域网上运行，请在“集群 &gt; 机器”中添加，然后在任务的“节点”列中选择它们。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="263"/>
        <source>One Slurm job for every task, as tensordeck --run FILE --slurm does (its settings: Cluster &gt; Slurm).</source>
        <translation>所有任务作为一个 Slurm 作业运行，与 tensordeck --run 文件 --slurm 相同（设置见“集群 &gt; Slurm”）。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="282"/>
        <source>Slurm: waiting for the job&apos;s allocation…</source>
        <translation>Slurm：正在等待作业分配资源…</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="296"/>
        <source>Withdrawing the Slurm job…</source>
        <translation>正在撤回 Slurm 作业…</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="304"/>
        <source>Killing the tasks…</source>
        <translation>正在强制结束任务…</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="311"/>
        <source>Force stop</source>
        <translation>强制停止</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="318"/>
        <source>Stopping: the tasks have {seconds} s to exit, then they are killed. Force stop kills them now.</source>
        <translation>正在停止：任务有 {seconds} 秒时间退出，之后将被强制结束。“强制停止”会立即结束它们。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="324"/>
        <source>Run folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="325"/>
        <source>No program here opens folders (a file manager). The run folder is:
{path}</source>
        <translation>这里没有能打开文件夹的程序（文件管理器）。运行文件夹是：
{path}</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="331"/>
        <source>Starting TensorBoard…</source>
        <translation>正在启动 TensorBoard…</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="338"/>
        <source>TensorBoard: {link}</source>
        <translation>TensorBoard：{link}</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="340"/>
        <source>(no web browser opened here: open the link yourself)</source>
        <translation>（这里没有打开网页浏览器：请自行打开该链接）</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="354"/>
        <source>TensorBoard is not installed</source>
        <translation>未安装 TensorBoard</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="355"/>
        <source>TensorBoard is not installed in the training interpreter {python}. Install it there now (pip install tensorboard)?</source>
        <translation>训练解释器 {python} 中未安装 TensorBoard。现在在其中安装吗（pip install tensorboard）？</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="379"/>
        <source>Slurm job {job}</source>
        <translation>Slurm 作业 {job}</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="402"/>
        <source>Slurm job {job}: every task runs as one of its steps</source>
        <translation>Slurm 作业 {job}：每个任务作为它的一个作业步运行</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="441"/>
        <source>Warning: {message}</source>
        <translation>警告：{message}</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="448"/>
        <source>Run {status}: {reason}</source>
        <translation>运行{status}：{reason}</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="488"/>
        <source>Stopped before the run started: the Slurm job was withdrawn from the queue. Nothing ran.</source>
        <translation>运行开始前已停止：Slurm 作业已从队列中撤回。没有运行任何任务。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="491"/>
        <source>Stopped before the run started. Nothing ran.</source>
        <translation>运行开始前已停止。没有运行任何任务。</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="499"/>
        <source>The run did not start:</source>
        <translation>运行未能开始：</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="505"/>
        <source>The run did not start</source>
        <translation>运行未启动</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="506"/>
        <source>Nothing was started:</source>
        <translation>没有启动任何任务：</translation>
    </message>
    <message>
        <location filename="../views/run.py" line="178"/>
        <source>Node GPUs</source>
        <translation>节点 GPU</translation>
    </message>
</context>
<context>
    <name>ScriptPage</name>
    <message>
        <location filename="../wizard.py" line="367"/>
        <source>The training script</source>
        <translation>训练脚本</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="368"/>
        <source>The Python file to run, and its arguments.</source>
        <translation>要运行的 Python 文件及其参数。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="372"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="373"/>
        <source>Use the bundled example</source>
        <translation>使用自带示例</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="374"/>
        <source>A small script that ships with TensorDeck and trains on made-up data with the chosen strategy</source>
        <translation>TensorDeck 自带的小脚本，用所选策略在合成数据上训练</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="380"/>
        <source>Hide TensorFlow&apos;s information messages (TF_CPP_MIN_LOG_LEVEL=1)</source>
        <translation>隐藏 TensorFlow 的提示信息（TF_CPP_MIN_LOG_LEVEL=1）</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="388"/>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="390"/>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="408"/>
        <source>{path} is a folder: choose the training script in it</source>
        <translation>{path} 是一个文件夹：请选择其中的训练脚本</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="411"/>
        <source>{path} does not exist</source>
        <translation>{path} 不存在</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="439"/>
        <source>Training script</source>
        <translation>训练脚本</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="440"/>
        <source>Python scripts (*.py)</source>
        <translation>Python 脚本 (*.py)</translation>
    </message>
</context>
<context>
    <name>SlurmForm</name>
    <message>
        <location filename="../views/slurm_form.py" line="32"/>
        <source>Slurm</source>
        <translation>Slurm</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="37"/>
        <source>Used when the Run view&apos;s &quot;Run on&quot; is a Slurm cluster (tensordeck --run FILE --slurm). Empty: the cluster&apos;s default.</source>
        <translation>在“运行”视图的“运行于”选择 Slurm 集群时使用（tensordeck --run 文件 --slurm）。留空：使用集群的默认值。</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="42"/>
        <source>Partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="42"/>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="43"/>
        <source>Time limit</source>
        <translation>时间限制</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="43"/>
        <source>GPUs per task</source>
        <translation>每个任务的 GPU 数</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="44"/>
        <source>More #SBATCH lines</source>
        <translation>更多 #SBATCH 行</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="51"/>
        <source>The cluster&apos;s default partition</source>
        <translation>集群的默认分区</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="52"/>
        <source>Your default account</source>
        <translation>你的默认账户</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="53"/>
        <source>The partition&apos;s; e.g. 90, 2:00:00 or 1-12:00:00</source>
        <translation>分区的默认值；例如 90、2:00:00 或 1-12:00:00</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="54"/>
        <source>None</source>
        <translation>不申请</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="55"/>
        <source>One option a line, e.g. --qos=normal</source>
        <translation>每行一个选项，例如 --qos=normal</translation>
    </message>
    <message>
        <location filename="../views/slurm_form.py" line="68"/>
        <source>Not set</source>
        <translation>未设置</translation>
    </message>
</context>
<context>
    <name>State</name>
    <message>
        <location filename="../i18n.py" line="59"/>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="51"/>
        <source>pending</source>
        <extracomment>Language code -&gt; its name in that language (what the settings menu lists).</extracomment>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="52"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="53"/>
        <source>restarting</source>
        <translation>重启中</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="54"/>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="55"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="56"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="57"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="58"/>
        <source>abandoned</source>
        <translation>已遗弃</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="60"/>
        <source>stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <location filename="../i18n.py" line="61"/>
        <source>not started</source>
        <translation>未开始</translation>
    </message>
</context>
<context>
    <name>Strategy</name>
    <message>
        <location filename="../views/job_form.py" line="41"/>
        <source>One process on one GPU (or the CPU). The simplest way to train.</source>
        <translation>一个进程，使用一块 GPU（或 CPU）。最简单的训练方式。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="43"/>
        <source>One process that uses every GPU of this machine and keeps a copy of the model on each (MirroredStrategy).</source>
        <translation>一个进程使用本机所有 GPU，每块 GPU 上各保存一份模型副本（MirroredStrategy）。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="46"/>
        <source>Several worker processes, each with its GPUs, training one model in step (MultiWorkerMirroredStrategy).</source>
        <translation>多个 worker 进程，各自使用自己的 GPU，同步训练同一个模型（MultiWorkerMirroredStrategy）。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="49"/>
        <source>A chief coordinates, workers compute, ps tasks hold the model&apos;s variables (TF2 ParameterServerStrategy).</source>
        <translation>由 chief 协调，worker 负责计算，ps 任务保存模型变量（TF2 ParameterServerStrategy）。</translation>
    </message>
    <message>
        <location filename="../views/job_form.py" line="52"/>
        <source>Classic TensorFlow 1 scripts that read --job_name, --task_index, --ps_hosts and --worker_hosts (replica_device_setter).</source>
        <translation>经典的 TensorFlow 1 脚本，读取 --job_name、--task_index、--ps_hosts 和 --worker_hosts 参数（replica_device_setter）。</translation>
    </message>
</context>
<context>
    <name>StrategyPage</name>
    <message>
        <location filename="../wizard.py" line="246"/>
        <source>How should it train?</source>
        <translation>如何训练？</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="247"/>
        <source>Pick the simplest that fits; you can change it later.</source>
        <translation>选择能满足需要的最简单方式；以后还可以修改。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="261"/>
        <source>One GPU (or the CPU)</source>
        <translation>一块 GPU（或 CPU）</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="262"/>
        <source>All GPUs of this machine</source>
        <translation>本机的所有 GPU</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="263"/>
        <source>Several processes, all GPUs in step</source>
        <translation>多个进程，所有 GPU 同步训练</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="264"/>
        <source>Several processes with parameter servers</source>
        <translation>多个进程，使用参数服务器</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="265"/>
        <source>A TensorFlow 1 cluster script</source>
        <translation>TensorFlow 1 集群脚本</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="285"/>
        <source>Needs NVIDIA GPUs: none was found on this machine.</source>
        <translation>需要 NVIDIA GPU：本机没有找到。</translation>
    </message>
</context>
<context>
    <name>TaskEditor</name>
    <message>
        <location filename="../widgets/task_editor.py" line="197"/>
        <source>Restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="195"/>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="195"/>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="195"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="196"/>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="196"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="209"/>
        <source>Add task</source>
        <translation>添加任务</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="257"/>
        <source>A port from {low} to {high}, or empty: a free one is picked at each start</source>
        <translation>{low} 到 {high} 之间的端口；留空则每次启动时自动选择空闲端口</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="256"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="196"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../widgets/task_editor.py" line="227"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
</context>
<context>
    <name>TaskTable</name>
    <message>
        <location filename="../widgets/task_table.py" line="36"/>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="36"/>
        <source>Index</source>
        <translation>序号</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="36"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="36"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="36"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="37"/>
        <source>Restarts</source>
        <translation>重启次数</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="37"/>
        <source>Exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="37"/>
        <source>Uptime</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="37"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="132"/>
        <source>{rate:.3g} steps/s</source>
        <translation>{rate:.3g} 步/秒</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="134"/>
        <source>ETA {time}</source>
        <translation>预计剩余 {time}</translation>
    </message>
    <message>
        <location filename="../widgets/task_table.py" line="144"/>
        <source>{done:g} of {total:g} steps</source>
        <translation>{done:g} / {total:g} 步</translation>
    </message>
</context>
<context>
    <name>TasksPage</name>
    <message>
        <location filename="../wizard.py" line="332"/>
        <source>Tasks and GPUs</source>
        <translation>任务与 GPU</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="338"/>
        <source>No NVIDIA GPU was found on this machine: the tasks will run on the CPU.</source>
        <translation>本机未找到 NVIDIA GPU：任务将在 CPU 上运行。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="358"/>
        <source>One process. Choose the GPUs it may use.</source>
        <translation>一个进程。选择它可以使用的 GPU。</translation>
    </message>
    <message>
        <location filename="../wizard.py" line="359"/>
        <source>Each row is one kind of process. Ports: empty (&apos;auto&apos;) picks a free one at each start.</source>
        <translation>每一行是一类进程。端口：留空（“自动”）则每次启动时选择空闲端口。</translation>
    </message>
</context>
<context>
    <name>TensorBoard</name>
    <message>
        <location filename="../tensorboard.py" line="103"/>
        <source>TensorBoard exited with code {code}:
{tail}</source>
        <extracomment>Whether a web browser took the last URL (False where none is installed).</extracomment>
        <translation>TensorBoard 已退出，退出码 {code}：
{tail}</translation>
    </message>
    <message>
        <location filename="../tensorboard.py" line="110"/>
        <source>Cannot start {python}: the training interpreter is missing.</source>
        <translation>无法启动 {python}：训练用解释器不存在。</translation>
    </message>
    <message>
        <location filename="../tensorboard.py" line="144"/>
        <source>TensorBoard is installed in {python}.</source>
        <translation>TensorBoard 已安装到 {python}。</translation>
    </message>
    <message>
        <location filename="../tensorboard.py" line="149"/>
        <source>The install failed (exit code {code}): {last}</source>
        <translation>安装失败（退出码 {code}）：{last}</translation>
    </message>
    <message>
        <location filename="../tensorboard.py" line="156"/>
        <source>Cannot start {python}.</source>
        <translation>无法启动 {python}。</translation>
    </message>
</context>
<context>
    <name>TrustDialog</name>
    <message>
        <location filename="../trust_dialog.py" line="27"/>
        <source>Trust {host}?</source>
        <translation>信任 {host}？</translation>
    </message>
    <message>
        <location filename="../trust_dialog.py" line="29"/>
        <source>{host}:{port} is not a known host yet. Compare its key&apos;s fingerprint with the one the machine itself shows (Linux: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub; Windows: ssh-keygen -lf C:\ProgramData\ssh\ssh_host_ed25519_key.pub) and trust it only when they are the same.</source>
        <translation>{host}:{port} 还不是已知主机。请将其密钥指纹与该机器自己显示的指纹比较（Linux：ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub；Windows：ssh-keygen -lf C:\ProgramData\ssh\ssh_host_ed25519_key.pub），只有两者相同时才信任它。</translation>
    </message>
    <message>
        <location filename="../trust_dialog.py" line="46"/>
        <source>Trust</source>
        <translation>信任</translation>
    </message>
    <message>
        <location filename="../trust_dialog.py" line="35"/>
        <source>Key fingerprint: {fingerprint}</source>
        <translation>密钥指纹：{fingerprint}</translation>
    </message>
</context>
</TS>
