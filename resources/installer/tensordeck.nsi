; TensorDeck's Windows installer (NSIS 3.08 or later; UTF-8 with a BOM, so that makensis reads
; the Chinese strings as UTF-8). It wraps the folder that build_installer.spec builds
; (dist\TensorDeck\: tensordeck-gui.exe, the window, and tensordeck.exe, the console tool) into
; dist\TensorDeck-VERSION-setup.exe:
;   makensis -DAppVersion=0.1.0 resources\installer\tensordeck.nsi
; -DAppDir=FOLDER and -DOutDir=FOLDER build from and into other folders (the Windows lane's). The
; default version below must match core/__init__.py (tests/test_installer_files.py checks).
;
; Per user, without admin rights, into %LOCALAPPDATA%\Programs\TensorDeck: the program, a Start
; menu entry and an uninstall entry; chosen on the components page (a silent install, /S, takes
; the defaults): a desktop shortcut (off), the console tool on the user's PATH (on), "Open with
; TensorDeck" for JSON configs (on). The uninstaller removes only what this installer wrote: run
; folders, settings (HKCU\Software\TensorDeck, %LOCALAPPDATA%\TensorDeck) and the user's configs
; stay. The pages are English or Simplified Chinese, as Windows' display language.
; The Windows lane (scripts/windows_lane.sh installer) builds it, installs, checks and removes it.

Unicode true
Target amd64-unicode
ManifestDPIAware true

!define AppName "TensorDeck"
!ifndef AppVersion
  !define AppVersion "0.1.0"
!endif
!define GuiExe "tensordeck-gui.exe"
!define CliExe "tensordeck.exe"
!ifndef AppDir
  !define AppDir "..\..\dist\TensorDeck"
!endif
!ifndef OutDir
  !define OutDir "..\..\dist"
!endif
!define UninstallKey "Software\Microsoft\Windows\CurrentVersion\Uninstall\${AppName}"
!define ProgId "TensorDeck.Config"
!define SHCNE_ASSOCCHANGED 0x08000000

!include MUI2.nsh
!include LogicLib.nsh
!include WinMessages.nsh
!include FileFunc.nsh

Name "${AppName}"
OutFile "${OutDir}\${AppName}-${AppVersion}-setup.exe"
InstallDir "$LOCALAPPDATA\Programs\${AppName}"
InstallDirRegKey HKCU "${UninstallKey}" "InstallLocation"
RequestExecutionLevel user
SetCompressor /SOLID lzma
BrandingText "${AppName} ${AppVersion}"

!define MUI_ICON "..\icons\tensordeck.ico"
!define MUI_UNICON "..\icons\tensordeck.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${GuiExe}"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString DescApp ${LANG_ENGLISH} "The window (${GuiExe}) and the console tool (${CliExe}), with a Start menu entry."
LangString DescApp ${LANG_SIMPCHINESE} "窗口程序 (${GuiExe}) 和命令行工具 (${CliExe})，以及开始菜单项。"
LangString NameDesktop ${LANG_ENGLISH} "Desktop shortcut"
LangString NameDesktop ${LANG_SIMPCHINESE} "桌面快捷方式"
LangString DescDesktop ${LANG_ENGLISH} "A shortcut to the window on the desktop."
LangString DescDesktop ${LANG_SIMPCHINESE} "在桌面上创建窗口程序的快捷方式。"
LangString NamePath ${LANG_ENGLISH} "Console tool on PATH"
LangString NamePath ${LANG_SIMPCHINESE} "将命令行工具添加到 PATH"
LangString DescPath ${LANG_ENGLISH} "Add the console tool (tensordeck) to your PATH: new terminals can run tensordeck --run."
LangString DescPath ${LANG_SIMPCHINESE} "将命令行工具 (tensordeck) 添加到您的 PATH：新打开的终端即可运行 tensordeck --run。"
LangString NameOpenWith ${LANG_ENGLISH} "Open JSON configs with ${AppName}"
LangString NameOpenWith ${LANG_SIMPCHINESE} "用 ${AppName} 打开 JSON 配置"
LangString DescOpenWith ${LANG_ENGLISH} 'Offer "Open with ${AppName}" for JSON configs (*.tensordeck.json, *.json); the default program for .json stays as it is.'
LangString DescOpenWith ${LANG_SIMPCHINESE} "为 JSON 配置文件 (*.tensordeck.json, *.json) 提供“用 ${AppName} 打开”；.json 的默认程序保持不变。"
LangString PathNotEdited ${LANG_ENGLISH} "Your PATH was left as it is: with this folder added it would pass the 1023 characters this installer can edit safely. Add or remove $INSTDIR in it yourself (Settings > System > About > Advanced system settings > Environment Variables)."
LangString PathNotEdited ${LANG_SIMPCHINESE} "您的 PATH 保持不变：加入此文件夹后将超过本安装程序可以安全编辑的 1023 个字符。请自行在其中添加或删除 $INSTDIR (设置 > 系统 > 关于 > 高级系统设置 > 环境变量)。"

; The user's PATH (HKCU\Environment), edited as one ';'-separated list of whole entries compared
; without case; everything else in it is kept as it was, byte for byte (so an install and an
; uninstall give it back unchanged, a trailing ';' included). NSIS strings hold at most
; NSIS_MAX_STRLEN characters (1024 in the official builds): a longer PATH is never written back
; (it would be cut), only reported.
!macro UserPathFunctions un
  ; Pushes 1 when HKCU\Environment has a Path value (also one too long to read), else 0.
  Function ${un}UserPathPresent
    Push $0
    Push $1
    StrCpy $0 0
    ${Do}
      ClearErrors
      EnumRegValue $1 HKCU "Environment" $0
      ${If} ${Errors}
      ${OrIf} $1 == ""
        StrCpy $1 0
        ${Break}
      ${EndIf}
      ${If} $1 == "Path"
        StrCpy $1 1
        ${Break}
      ${EndIf}
      IntOp $0 $0 + 1
    ${Loop}
    Pop $0
    Exch $1
  FunctionEnd

  ; Takes a PATH value; pushes where the entry $INSTDIR starts in it, or -1.
  Function ${un}FindInstallDir
    Exch $0  ; ";PATH;", searched for ";$INSTDIR;"
    Push $1  ; position
    Push $2  ; length of ";$INSTDIR;"
    Push $3  ; the last position to try
    Push $4  ; the text at the position
    StrCpy $0 ";$0;"
    StrLen $2 ";$INSTDIR;"
    StrLen $3 $0
    IntOp $3 $3 - $2
    StrCpy $1 0
    ${Do}
      ${If} $1 > $3
        StrCpy $1 -1
        ${Break}
      ${EndIf}
      StrCpy $4 $0 $2 $1
      ${If} $4 == ";$INSTDIR;"  ; LogicLib's == ignores case, as Windows does in paths
        ${Break}
      ${EndIf}
      IntOp $1 $1 + 1
    ${Loop}
    StrCpy $0 $1  ; in ";PATH;" the entry starts one later, in PATH exactly there
    Pop $4
    Pop $3
    Pop $2
    Pop $1
    Exch $0
  FunctionEnd

  ; Takes "+" (add $INSTDIR to the end of the user's PATH) or "-" (remove it and one ';').
  Function ${un}EditUserPath
    Exch $R0
    Push $R1  ; the user's PATH
    Push $R2  ; where $INSTDIR is in it (-1: not there)
    Push $R3
    ClearErrors
    ReadRegStr $R1 HKCU "Environment" "Path"
    ${If} ${Errors}
      Call ${un}UserPathPresent
      Pop $R2
      ${If} $R2 == 1  ; there, yet unreadable: longer than an NSIS string
        DetailPrint "$(PathNotEdited)"
        Goto done
      ${EndIf}
      StrCpy $R1 ""
    ${EndIf}
    StrLen $R2 "$R1;$INSTDIR;"
    ${If} $R2 >= ${NSIS_MAX_STRLEN}
      DetailPrint "$(PathNotEdited)"
      Goto done
    ${EndIf}
    Push $R1
    Call ${un}FindInstallDir
    Pop $R2
    ${If} $R0 == "+"
      ${If} $R2 >= 0
        Goto done  ; already there
      ${ElseIf} $R1 == ""
        StrCpy $R1 "$INSTDIR"
      ${Else}
        StrCpy $R3 $R1 1 -1
        ${If} $R3 == ";"  ; keep the user's trailing ';'
          StrCpy $R1 "$R1$INSTDIR;"
        ${Else}
          StrCpy $R1 "$R1;$INSTDIR"
        ${EndIf}
      ${EndIf}
    ${Else}
      ${If} $R2 < 0
        Goto done
      ${EndIf}
      StrLen $R3 "$INSTDIR"
      IntOp $R3 $R2 + $R3  ; where the entry ends
      StrCpy $R0 $R1 1 $R3
      ${If} $R0 == ";"  ; the entry and the ';' after it
        IntOp $R3 $R3 + 1
        StrCpy $R0 $R1 "" $R3
        StrCpy $R1 $R1 $R2
        StrCpy $R1 "$R1$R0"
      ${Else}  ; the last entry: the ';' before it, and it
        ${If} $R2 > 0
          IntOp $R2 $R2 - 1
        ${EndIf}
        StrCpy $R1 $R1 $R2
      ${EndIf}
    ${EndIf}
    ${If} $R1 == ""
      DeleteRegValue HKCU "Environment" "Path"
    ${Else}
      WriteRegExpandStr HKCU "Environment" "Path" $R1
    ${EndIf}
    ; Running programs (Explorer: new terminals) read the environment again.
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
    done:
    Pop $R3
    Pop $R2
    Pop $R1
    Pop $R0
  FunctionEnd
!macroend
!insertmacro UserPathFunctions ""
!insertmacro UserPathFunctions "un."

Section "${AppName}" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; An update replaces the bundle's library folder whole: no module of the old version stays.
  RMDir /r "$INSTDIR\_internal"
  File /r "${AppDir}\*"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  ; Shortcuts start the window in the user's Documents, never in the program's folder.
  SetOutPath "$DOCUMENTS"
  CreateShortcut "$SMPROGRAMS\${AppName}.lnk" "$INSTDIR\${GuiExe}"
  WriteRegStr HKCU "${UninstallKey}" "DisplayName" "${AppName} ${AppVersion}"
  WriteRegStr HKCU "${UninstallKey}" "DisplayVersion" "${AppVersion}"
  WriteRegStr HKCU "${UninstallKey}" "Publisher" "${AppName}"
  WriteRegStr HKCU "${UninstallKey}" "DisplayIcon" "$INSTDIR\${GuiExe},0"
  WriteRegStr HKCU "${UninstallKey}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UninstallKey}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UninstallKey}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UninstallKey}" "NoModify" 1
  WriteRegDWORD HKCU "${UninstallKey}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UninstallKey}" "EstimatedSize" $0
SectionEnd

Section /o "$(NameDesktop)" SecDesktop
  SetOutPath "$DOCUMENTS"
  CreateShortcut "$DESKTOP\${AppName}.lnk" "$INSTDIR\${GuiExe}"
SectionEnd

Section "$(NamePath)" SecPath
  Push "+"
  Call EditUserPath
SectionEnd

; Windows picks a file's handler by its last extension only, so "job.tensordeck.json" is a
; ".json" file: TensorDeck joins .json's "Open with" list and leaves its default handler alone.
Section "$(NameOpenWith)" SecOpenWith
  WriteRegStr HKCU "Software\Classes\${ProgId}" "" "${AppName} job config"
  WriteRegStr HKCU "Software\Classes\${ProgId}\DefaultIcon" "" "$INSTDIR\${GuiExe},0"
  WriteRegStr HKCU "Software\Classes\${ProgId}\shell\open\command" "" '"$INSTDIR\${GuiExe}" "%1"'
  WriteRegStr HKCU "Software\Classes\.json\OpenWithProgids" "${ProgId}" ""
  WriteRegStr HKCU "Software\Classes\Applications\${GuiExe}" "FriendlyAppName" "${AppName}"
  WriteRegStr HKCU "Software\Classes\Applications\${GuiExe}\SupportedTypes" ".json" ""
  System::Call 'shell32::SHChangeNotify(i ${SHCNE_ASSOCCHANGED}, i 0, p 0, p 0)'
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} $(DescApp)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} $(DescDesktop)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} $(DescPath)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecOpenWith} $(DescOpenWith)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; Only what the installer wrote, file by file: a folder the user chose may hold their own files.
Section "Uninstall"
  Delete "$INSTDIR\${GuiExe}"
  Delete "$INSTDIR\${CliExe}"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${AppName}.lnk"
  Delete "$DESKTOP\${AppName}.lnk"
  Push "-"
  Call un.EditUserPath
  DeleteRegKey HKCU "Software\Classes\${ProgId}"
  DeleteRegValue HKCU "Software\Classes\.json\OpenWithProgids" "${ProgId}"
  DeleteRegKey HKCU "Software\Classes\Applications\${GuiExe}"
  System::Call 'shell32::SHChangeNotify(i ${SHCNE_ASSOCCHANGED}, i 0, p 0, p 0)'
  DeleteRegKey HKCU "${UninstallKey}"
SectionEnd
