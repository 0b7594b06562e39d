; TensorDeck's Windows installer (Inno Setup 6.3 or later; UTF-8 with a BOM, so that iscc
; reads the Chinese lines as UTF-8). It wraps the folder that build_installer.spec builds
; (dist\TensorDeck\: tensordeck-gui.exe, the window, and tensordeck.exe, the console tool)
; into dist\TensorDeck-VERSION-setup.exe:
;   iscc /DAppVersion=0.1.0 resources\installer\tensordeck.iss
; The Windows workflow passes the version read from core/__init__.py; the default below must
; match it (tests/test_installer_files.py checks).
;
; Per-user install into %LOCALAPPDATA%\Programs\TensorDeck without admin rights (an admin may
; choose an all-users install), a Start menu entry, optional: a desktop shortcut, the console
; tool on the user's PATH, "Open with TensorDeck" for JSON configs. The uninstaller removes
; only what this installer wrote: run folders, settings (HKCU\Software\TensorDeck) and the
; user's configs stay.

#define AppName "TensorDeck"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define GuiExe "tensordeck-gui.exe"
#define CliExe "tensordeck.exe"
#define DistDir "..\..\dist"
; Simplified Chinese ships with recent Inno Setup releases only: use it where it is there.
#define HaveChinese FileExists(CompilerPath + "Languages\ChineseSimplified.isl")

[Setup]
AppId={{D4A45D23-48F8-4AC5-9F42-E6C400001F30}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#AppName}
DefaultDirName={autopf}\{#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#DistDir}
OutputBaseFilename={#AppName}-{#AppVersion}-setup
SetupIconFile=..\icons\tensordeck.ico
UninstallDisplayIcon={app}\{#GuiExe}
UninstallDisplayName={#AppName} {#AppVersion}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes
ChangesAssociations=yes

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"
#if HaveChinese
Name: "zh_CN"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"
#endif

[CustomMessages]
en.AddToPath=Add the console tool (tensordeck) to PATH
en.OpenJsonWith=Offer "Open with {#AppName}" for JSON configs (*.tensordeck.json, *.json)
en.Integration=Integration:
#if HaveChinese
zh_CN.AddToPath=将命令行工具 (tensordeck) 添加到 PATH
zh_CN.OpenJsonWith=为 JSON 配置文件 (*.tensordeck.json, *.json) 提供“用 {#AppName} 打开”
zh_CN.Integration=集成:
#endif

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "{cm:AddToPath}"; GroupDescription: "{cm:Integration}"; Flags: unchecked
Name: "openwith"; Description: "{cm:OpenJsonWith}"; GroupDescription: "{cm:Integration}"

[InstallDelete]
; An update replaces the bundle's library folder whole: no module of the old version stays.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#DistDir}\TensorDeck\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#GuiExe}"; WorkingDir: "{userdocs}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#GuiExe}"; WorkingDir: "{userdocs}"; Tasks: desktopicon

[Registry]
; Windows picks a file's handler by its last extension only, so "job.tensordeck.json" is a
; ".json" file: TensorDeck joins .json's "Open with" list and leaves its default handler alone.
Root: HKA; Subkey: "Software\Classes\TensorDeck.Config"; ValueType: string; ValueName: ""; ValueData: "{#AppName} job config"; Flags: uninsdeletekey; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\TensorDeck.Config\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#GuiExe},0"; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\TensorDeck.Config\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#GuiExe}"" ""%1"""; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\.json\OpenWithProgids"; ValueType: string; ValueName: "TensorDeck.Config"; ValueData: ""; Flags: uninsdeletevalue; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\Applications\{#GuiExe}"; ValueType: string; ValueName: "FriendlyAppName"; ValueData: "{#AppName}"; Flags: uninsdeletekey; Tasks: openwith
Root: HKA; Subkey: "Software\Classes\Applications\{#GuiExe}\SupportedTypes"; ValueType: string; ValueName: ".json"; ValueData: ""; Tasks: openwith

[Run]
Filename: "{app}\{#GuiExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
// The user's PATH (HKCU\Environment), edited as one ';'-separated string: the install folder
// is added when the task is chosen and removed again by the uninstaller.
const
  EnvKey = 'Environment';

function UserPath(): string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, EnvKey, 'Path', Result) then
    Result := '';
end;

// 1-based position of Dir in the user's PATH (case-insensitive, whole entries), 0 if absent.
function PathPos(Dir: string): Integer;
begin
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(UserPath()) + ';');
end;

procedure AddToPath(Dir: string);
var
  Path: string;
begin
  if PathPos(Dir) > 0 then
    exit;
  Path := UserPath();
  if (Path <> '') and (Copy(Path, Length(Path), 1) <> ';') then
    Path := Path + ';';
  RegWriteExpandStringValue(HKEY_CURRENT_USER, EnvKey, 'Path', Path + Dir);
end;

procedure RemoveFromPath(Dir: string);
var
  Path: string;
  P: Integer;
begin
  P := PathPos(Dir);
  if P = 0 then
    exit;
  Path := UserPath();
  if P > 1 then
    Delete(Path, P - 1, Length(Dir) + 1)  // the ';' before it, and it
  else
    Delete(Path, 1, Length(Dir) + 1);     // it, and the ';' after it
  RegWriteExpandStringValue(HKEY_CURRENT_USER, EnvKey, 'Path', Path);
end;

procedure CurStepChanged(CurStep: TSetupStep);
begin
  if (CurStep = ssPostInstall) and WizardIsTaskSelected('addtopath') then
    AddToPath(ExpandConstant('{app}'));
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usPostUninstall then
    RemoveFromPath(ExpandConstant('{app}'));
end;
